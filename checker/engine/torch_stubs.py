"""The PyTorch stubs (`kata init --torch`, `kata reset NN --torch`): each kata's NumPy stub in torch's words,
shipped as checker/hidden/<slug>/stub_torch.py. Made here from the NumPy stub by torch_words.yaml's stub rules
and its text rules (docstrings, comments, kata 05's given helpers), its worked examples' outputs then computed
by running them on the kata's correct PyTorch answer (torch/correct.py), so every example shows what torch
prints. Kata 10 hands out a NumPy decoder to fix: it has none.

    python -m checker.engine.torch_stubs      # rewrite every stub_torch.py (needs torch); tests check they agree
"""

import ast
import contextlib
import doctest
import io
import re

from checker.engine import spelling

NAME = "stub_torch.py"
NOTE = ("In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d\n"
        "tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.\n")


def torch_stub(kata):
    """The kata's shipped PyTorch stub, or None (kata 10, or an install without it)."""
    try:
        return (kata.folder / NAME).read_text(encoding="utf-8")
    except OSError:
        return None


def made(kata):
    """The PyTorch stub made afresh from the NumPy stub, its examples run on torch/correct.py (imports torch),
    or None for a kata that hands out NumPy code (kata 10) or has no correct PyTorch answer to run them on."""
    from checker.engine import catalog
    from checker.engine.workspace import pristine_stub

    stub, answer = pristine_stub(kata), kata.folder / "torch" / "correct.py"
    if stub is None or kata.part("plants") is not None or not answer.is_file() or \
            not re.search(r"^import numpy as np$", stub, re.M):
        return None
    for pattern, replacement in spelling.rules(spelling.WORDS, "stub_rules") + spelling.rules():
        stub = pattern.sub(replacement, stub)
    opening = stub.index('"""', 3)  # the module docstring's end: the note goes last in it
    stub = stub[:opening].rstrip("\n") + "\n\n" + NOTE + stub[opening:]
    return _examples_computed(stub, vars(catalog.load_module(answer, f"kata_torch_answer_{kata.id}")))


def _examples_computed(stub, answer):
    """`stub` with each docstring example's output replaced by what it prints when run on `answer`'s names."""
    lines, edits = stub.split("\n"), []
    tree = ast.parse(stub)
    for node in [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]:
        doc = ast.get_docstring(node, clean=False)
        if not doc or ">>>" not in doc:
            continue
        opening, names = node.body[0].lineno - 1, dict(answer)  # each docstring's examples share their names
        for example in doctest.DocTestParser().get_examples(doc):
            printed = _run(example.source, names).rstrip("\n")
            first = opening + example.lineno + example.source.count("\n")
            edits.append((first, example.want.count("\n"),
                          [" " * example.indent + line for line in printed.split("\n")] if printed else []))
    for first, count, new in sorted(edits, reverse=True):
        lines[first:first + count] = new
    return "\n".join(lines)


def _run(source, names):
    """What one example prints at a Python prompt: the repr of an expression's value, or a statement's output."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            code = compile(source, "<example>", "eval")
        except SyntaxError:
            exec(compile(source, "<example>", "exec"), names)  # noqa: S102 - the project's own examples and answer
        else:
            value = eval(code, names)  # noqa: S307
            if value is not None:
                print(repr(value))
    return printed.getvalue()


def write_all():
    """Rewrite every kata's stub_torch.py from its NumPy stub; the katas written."""
    from checker.engine import catalog

    written = []
    for kata in catalog.all_katas():
        text = made(kata)
        if text is not None:
            (kata.folder / NAME).write_text(text, encoding="utf-8")
            written.append(kata.id)
    return written


if __name__ == "__main__":
    print("wrote the PyTorch stubs of katas", ", ".join(write_all()))

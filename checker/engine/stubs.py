"""Reading a stub's source: code left unreachable below its `raise NotImplementedError`, and the
interview-style stub a mock hands out (the contract without the practice notes).

A stub's docstring may mark paragraphs for practice only: a paragraph starting `Hint:` or `Trap:`
(and every `# TODO` comment line) is dropped from a mock's stub, so the two never drift apart.
"""

import ast
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Unreachable:
    function: str
    raise_line: int  # the stub's `raise NotImplementedError`
    first_line: int  # the first line of the learner's code below it, which never runs


def unreachable(source):
    """Each function whose `raise NotImplementedError` has code after it in the same block."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for position, statement in enumerate(node.body[:-1]):
            if _raises_not_implemented(statement):
                found.append(Unreachable(node.name, statement.lineno, node.body[position + 1].lineno))
                break
    return sorted(found, key=lambda item: item.raise_line)


def _raises_not_implemented(statement):
    if not isinstance(statement, ast.Raise) or statement.exc is None:
        return False
    raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


_PRACTICE_ONLY = re.compile(r"^\s*(Hint|Trap)s?:", re.I)
_TODO = re.compile(r"^\s*#\s*TODO\b")
_TODO_GOES_ON = re.compile(r"^\s*#\s{2,}\S")  # a TODO's next line, indented under its text


def interview(source):
    """The stub as an interviewer hands it out: the same code and contract, without `# TODO` lines and
    without the docstring paragraphs marked `Hint:` or `Trap:` (a paragraph ends at a blank line)."""
    kept, skipping, todo = [], False, False
    for line in source.splitlines(keepends=True):
        todo = bool(_TODO.match(line) or (todo and _TODO_GOES_ON.match(line)))
        if todo:
            continue
        if _PRACTICE_ONLY.match(line):
            skipping = True
        if skipping:
            ending = not line.strip() or line.rstrip().endswith('"""')
            if ending:
                skipping = False
                if line.rstrip().endswith('"""'):  # the docstring closes: keep its quotes on their own line
                    indent = line[:len(line) - len(line.lstrip())]
                    kept.append(f'{indent}"""\n')
                elif kept and not kept[-1].strip():
                    continue  # no double blank line where a paragraph went
                else:
                    kept.append(line)
            continue
        kept.append(line)
    return _no_blank_before_closing("".join(kept))


def _no_blank_before_closing(text):
    """A docstring whose last paragraph was dropped ends without a blank line before its quotes."""
    return re.sub(r'\n[ \t]*\n([ \t]*""")', r"\n\1", text)

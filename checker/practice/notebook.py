"""`%%kata NN` and `%kata VERB` in Jupyter: check a cell's code as kata NN's file, in the same sandbox as
`kata check`, and the learner's verbs (list, hint, solution, repro, check) without leaving the notebook.

The cell's text is handed to the sandbox as the kata file's bytes: it is never run in the notebook's own
process, so the kernel's namespace is untouched, and a cell that loops ends with a timeout verdict while the
kernel lives on. The verdict shows as HTML (notebook_html.py) with the terminal's text as a plain fallback.
A cell's check is the cell's own entry in the progress record (kata, time, outcome), never the kata file's:
what `katas/NN_slug.py` earned stays until that file is checked again.

    %load_ext checker
    %%kata 02
    import numpy as np
    def softmax(x, axis=-1): ...
"""

import shlex
from pathlib import Path

from checker.engine.results import Status
from checker.practice.notebook_html import Text, Verdict, bounded, grid_html, result_html  # noqa: F401 (the API)
from checker.practice.notebook_html import CODE_CHARS, FAILURES, MESSAGE_CHARS, OUTPUT_CHARS  # noqa: F401

USAGE = ("%%kata NN [--timeout SECONDS] [--verbose] checks the cell as kata NN's file; "
         "%kata list | next | hint [NN] | solution NN [--yes] | repro NN | check NN [--verbose]")


def load_ipython_extension(ipython):
    """What `%load_ext checker` calls: register `kata` as a cell magic (`%%kata NN`) and a line magic (`%kata hint`)."""
    from IPython.core.magic import no_var_expand

    # the line is taken raw: IPython would otherwise run every {expression} in it in the kernel first
    ipython.register_magic_function(no_var_expand(kata_magic), magic_kind="line_cell", magic_name="kata")


def kata_magic(line, cell=None):
    """%%kata NN [--timeout SECONDS] [--verbose]: check this cell as kata NN's file (in the sandbox, never in this
    kernel). %kata list, next, hint [NN], solution NN [--yes], repro NN, check NN: the learner's verbs."""
    from IPython.display import display

    from checker.engine import catalog

    try:
        workspace = catalog.find_workspace()  # the progress goes in a workspace: outside one, `kata init` makes one
        shown = verb(line, workspace) if cell is None else _check(line, cell)
    except (ValueError, catalog.NoWorkspace) as problem:
        shown = Verdict(None, None, error=str(problem))
    display(shown)


def _check(line, cell):
    kata, seconds, verbose = _arguments(line)
    return check_cell(kata, cell, seconds, verbose)


def _arguments(line):
    """The cell magic's line: (kata, seconds, verbose); ValueError says the usage."""
    from checker.engine import catalog
    from checker.sandbox import DEFAULT_SECONDS

    words = shlex.split(line)
    seconds = DEFAULT_SECONDS
    if "--timeout" in words:
        at = words.index("--timeout")
        try:
            seconds = float(words[at + 1])
        except (IndexError, ValueError):
            raise ValueError("--timeout takes a number of seconds, e.g. %%kata 02 --timeout 5") from None
        del words[at:at + 2]
    verbose = "--verbose" in words
    words = [word for word in words if word != "--verbose"]
    if len(words) != 1:
        raise ValueError("usage: %%kata NN [--timeout SECONDS] [--verbose], e.g. %%kata 02")
    return _kata(words[0]), seconds, verbose


def _kata(key):
    from checker.engine import catalog

    try:
        return catalog.find(key)
    except catalog.UnknownKata as unknown:
        raise ValueError(str(unknown)) from None


def check_cell(kata, cell, seconds, verbose=False):
    """Check the cell's text as `kata`'s file; the verdict to display, with the check recorded as the cell's."""
    from checker.engine import catalog, prompts as kata_prompts
    from checker.engine.runner import DEFAULT_SEED, check
    from checker.practice import progress
    from checker.sandbox import Limits

    workspace = catalog.find_workspace()
    record = progress.load(workspace)
    seed = record.katas[kata.id].seed if kata.id in record.katas else None
    result = check(kata, f"cell-{kata.filename}", Limits(seconds=seconds),
                   DEFAULT_SEED if seed is None else seed, source=cell.encode("utf-8"))
    record.record_cell(result.kata, result.status.value, result.bugs)  # the cell's own entry, never the file's
    try:
        record.save()
    except OSError:
        pass  # progress is a help: a read-only workspace still gets its verdict
    prompts = None if result.status == Status.PASSED else kata_prompts.for_kata(kata, result.frontend)
    verdict = Verdict(bounded(result), prompts, repro=_repro(kata, result, cell, workspace), verbose=verbose)
    verdict.defence = _defence_hint(kata, result)
    return verdict


def _defence_hint(kata, result):
    """`kata defend`'s hook: after a pass, the command that asks about this code, as plain text (no link)."""
    if result.status != Status.PASSED or not (kata.folder / "defend.yaml").is_file():
        return None
    from checker.present.defend_lines import hint_line

    return f"{hint_line(kata.id)} (in a terminal, with this cell's code in katas/{kata.filename})"


def cell_copy(kata, workspace):
    """Where the latest cell checked as `kata` is kept (its repro runs on it)."""
    return Path(workspace) / ".kata" / "notebook" / Path(kata.filename).name


def repro_path(kata, workspace):
    """Where the repro of the latest failing cell of `kata` is written (apart from `kata check --repro`'s)."""
    return Path(workspace) / ".kata" / "notebook" / "repro" / Path(kata.filename).name


def _repro(kata, result, cell, workspace):
    """The first failure as a runnable snippet (checker/practice/repro.py), on a copy of the cell kept in
    .kata/notebook/, or None. Running it is the learner's choice: it runs the cell's code where it is run."""
    from checker.practice import repro

    copy, target = cell_copy(kata, workspace), repro_path(kata, workspace)
    try:
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(cell, encoding="utf-8")
        failed = next((test for test in result.ranked_failures if test.calls), None)
        if failed is None:
            target.unlink(missing_ok=True)  # `%kata repro` never shows a snippet of an older cell
            return None
        snippet = repro.build(failed, copy, kata.id, target.with_suffix(".npz"), result.frontend)
        return None if snippet is None else (repro.write(snippet, target)[0], snippet.code)
    except OSError:
        return None  # a repro is a help: no writable workspace, no repro


def verb(line, workspace):
    """`%kata VERB ...`: what the verb shows (notebook_verbs.py does each)."""
    from checker.practice import notebook_verbs

    words = shlex.split(line)
    if not words or words[0] in ("help", "-h", "--help"):
        return Text(USAGE)
    name, rest = words[0], words[1:]
    known = {"list": notebook_verbs.listing, "next": notebook_verbs.next_kata, "hint": notebook_verbs.hint,
             "solution": notebook_verbs.solution, "repro": notebook_verbs.repro, "check": notebook_verbs.check}
    if name not in known:
        if name[:1].isdigit():
            raise ValueError(f"%kata {name} is a line: a cell is checked with %%kata {name} on its first line. "
                             + USAGE)
        raise ValueError(f"unknown verb {name!r}. {USAGE}")
    return known[name](workspace, rest)

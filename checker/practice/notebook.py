"""`%%kata NN` in Jupyter: check a cell's code as kata NN's file, in the same sandbox as `kata check`.

The cell's text is handed to the sandbox as the kata file's bytes: it is never run in the notebook's own
process, so the kernel's namespace is untouched, and a cell that loops ends with a timeout verdict while the
kernel lives on. The verdict shows as HTML (status, named bugs, messages, the weight pictures as tables) with
the same text as a plain fallback for consoles. Progress is recorded as `kata check` records it.

    %load_ext checker
    %%kata 02
    import numpy as np
    def softmax(x, axis=-1): ...
"""

import dataclasses
import shlex

from checker.present import escape
from checker.engine.results import Status

# what a cell's verdict shows at most, whatever the cell printed or raised: its HTML and its text stay
# within a few hundred KB (FAILURES × (MESSAGE_CHARS + 3 × CODE_CHARS) + OUTPUT_CHARS characters, escaped)
MESSAGE_CHARS = 2_000  # of a check's message
CODE_CHARS = 200  # of a line of the cell quoted beside a failure
OUTPUT_CHARS = 20_000  # of what the cell printed
FAILURES = 40  # failing checks shown (the rest counted)

_COLOURS = {Status.PASSED: "#1a7f37", Status.FAILED: "#cf222e", Status.ERROR: "#cf222e",
            Status.TIMEOUT: "#9a6700", Status.NOT_STARTED: "#57606a"}


def load_ipython_extension(ipython):
    """What `%load_ext checker` calls: register the `%%kata` cell magic."""
    from IPython.core.magic import no_var_expand

    # the line is taken raw: IPython would otherwise run every {expression} in it in the kernel first
    ipython.register_magic_function(no_var_expand(kata_magic), magic_kind="cell", magic_name="kata")


def kata_magic(line, cell):
    """%%kata NN [--timeout SECONDS]: check this cell as kata NN's file (in the sandbox, never in this kernel)."""
    from IPython.display import display

    from checker.engine import catalog

    try:
        kata, seconds = _arguments(line)
        catalog.find_workspace()  # the progress goes in a workspace: outside one, say `kata init` makes one
    except (ValueError, catalog.NoWorkspace) as problem:
        display(Verdict(None, None, error=str(problem)))
        return
    display(check_cell(kata, cell, seconds))


def _arguments(line):
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
    if len(words) != 1:
        raise ValueError("usage: %%kata NN [--timeout SECONDS], e.g. %%kata 02")
    try:
        return catalog.find(words[0]), seconds
    except catalog.UnknownKata as unknown:
        raise ValueError(str(unknown)) from None


def check_cell(kata, cell, seconds):
    """Check the cell's text as `kata`'s file; the verdict to display, with the check recorded as progress."""
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
    prompts = None if result.status == Status.PASSED else kata_prompts.for_kata(kata)
    return Verdict(bounded(result), prompts, repro=_repro(kata, result, cell, workspace))


def bounded(result):
    """`result` with every text the cell's code shaped cut to a stated size (MESSAGE_CHARS, CODE_CHARS,
    OUTPUT_CHARS), so neither the HTML nor the text the kernel sends grows with the cell's bytes."""
    def test(outcome):
        where = [[line, escape.cut(function, CODE_CHARS), escape.cut(code, CODE_CHARS)]
                 for line, function, code in outcome.where[-3:]]
        return dataclasses.replace(outcome, message=escape.cut(outcome.message, MESSAGE_CHARS), where=where)

    return dataclasses.replace(result, tests=[test(outcome) for outcome in result.tests],
                               output=escape.cut(result.output, OUTPUT_CHARS))


def _repro(kata, result, cell, workspace):
    """The first failure as a runnable snippet (checker/practice/repro.py), on a copy of the cell kept in
    .kata/notebook/, or None. Running it is the learner's choice: it runs the cell's code where it is run."""
    from pathlib import Path

    from checker.practice import repro

    failed = next((test for test in result.ranked_failures if test.calls), None)
    if failed is None:
        return None
    folder = Path(workspace) / ".kata"
    copy = folder / "notebook" / Path(kata.filename).name
    target = folder / "repro" / Path(kata.filename).name
    try:
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(cell, encoding="utf-8")
        snippet = repro.build(failed, copy, kata.id, target.with_suffix(".npz"), result.frontend)
        return None if snippet is None else (repro.write(snippet, target)[0], snippet.code)
    except OSError:
        return None  # a repro is a help: no writable workspace, no repro


class Verdict:
    """A check's result as rich output: `_repr_html_` for notebooks, `__repr__` (kata check's text) elsewhere."""

    def __init__(self, result, prompts, error=None, repro=None):
        self.result, self.prompts, self.error = result, prompts, error
        self.repro = repro  # (path written, snippet) of the first failure, or None

    def __repr__(self):
        if self.error:
            return self.error
        import click

        from checker.present import render

        return click.unstyle(render.check_text(self.result, self.prompts, command="%%kata"))

    def _repr_html_(self):
        if self.error:
            return f'<div style="color:#cf222e">{escape.html(self.error)}</div>'
        page = result_html(self.result, self.prompts)
        if self.repro:
            path, code = self.repro
            page += (f"<details><summary>Repro, written to {escape.html(str(path))}: run it with "
                     f"<code>%run {escape.html(str(path))}</code></summary><pre>{escape.html(code)}</pre></details>")
        return page


def result_html(result, prompts=None):
    """The verdict as one HTML block. Every string from the learner's code (messages, printed output) is escaped."""
    status = Status(result.status)
    colour = _COLOURS.get(status, "#57606a")
    passed = sum(t.outcome == Status.PASSED for t in result.tests)
    parts = [f'<div class="kata-verdict"><p><b style="color:{colour}">{escape.html(status.value.upper())}</b> '
             f'kata {escape.html(result.kata)} {escape.html(result.slug)}: {passed} of {len(result.tests)} checks '
             f'passed in {result.seconds:.2f} s</p>']
    if result.bugs:
        parts.append("<p>Named: " + ", ".join(f"<code>{escape.html(b)}</code>" for b in result.bugs) + "</p>")
    if status == Status.NOT_STARTED and prompts is not None:
        parts.append(f"<pre>{escape.html(prompts.brief)}</pre>")
    failures = result.ranked_failures
    parts += [_failure_html(test, prompts) for test in failures[:FAILURES]]
    if len(failures) > FAILURES:
        parts.append(f"<p>… and {len(failures) - FAILURES} more failing checks</p>")
    if result.output:
        parts.append(f"<details><summary>printed</summary><pre>{escape.html(result.output)}</pre></details>")
    parts.append("</div>")
    return "".join(parts)


def _failure_html(test, prompts):
    lines = [f'<div style="margin:0.5em 0"><b>✗ {escape.html(test.name)}</b>: {escape.html(test.message)}']
    if test.picture is not None:
        lines.append(grid_html(test.picture))
    for line, function, code in test.where[-3:]:
        lines.append(f"<br><code>line {int(line)} in {escape.html(str(function))}: {escape.html(str(code))}</code>")
    if test.bug:
        fix = prompts.fixes.get(test.bug) if prompts else None
        lines.append(f"<br>→ <b><code>{escape.html(test.bug)}</code></b>" + (f". Fix: {escape.html(fix)}" if fix else ""))
    lines.append("</div>")
    return "".join(lines)


def grid_html(grid):
    """The learner's weights and the expected ones as two HTML tables (cells that differ in red), or "" when
    the terminal's picture would not be drawn either."""
    from checker.present.render import grid_cells

    drawn = grid_cells(grid)
    if drawn is None:
        return ""
    got, want, allowed, differs = drawn
    tables = [_table(f"{grid.title}: yours", got, allowed, differs),
              _table("expected", want, allowed, differs & False)]
    return '<div style="display:flex;gap:2em;flex-wrap:wrap">' + "".join(tables) + "</div>"


def _table(title, values, allowed, differs):
    import numpy as np

    head = "".join(f"<th>k{j}</th>" for j in range(values.shape[1]))
    rows = []
    for i, row in enumerate(values):
        cells = []
        for j, value in enumerate(row):
            text = "·" if not allowed[i, j] and value == 0 else ("nan" if value != value else f"{value:.2f}")
            style = ' style="color:#cf222e;font-weight:bold"' if differs[i, j] else ""
            cells.append(f"<td{style}>{text}</td>")
        rows.append(f"<tr><th>q{i}</th>{''.join(cells)}<td><i>{np.sum(row):.2f}</i></td></tr>")
    return (f'<table style="font-family:monospace;text-align:right"><caption>{escape.html(title)}</caption>'
            f"<tr><th></th>{head}<th>sum</th></tr>{''.join(rows)}</table>")


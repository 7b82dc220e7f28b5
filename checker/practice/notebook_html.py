"""What a `%%kata` cell and the `%kata` verbs show: HTML for notebooks, the terminal's text for consoles.

Every string from the learner's code (messages, printed output, code quoted beside a failure) is escaped, and
cut to a stated size first (`bounded`), so neither the HTML nor the text the kernel sends grows with the cell.
"""

import dataclasses

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


class Text:
    """Plain text a verb shows (`%kata list`, a hint, the reference, a repro): preformatted HTML, elsewhere the
    text with every hidden character shown by its code point (a repro quotes what the cell's code printed)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "\n".join(escape.lines(self.text))

    def _repr_html_(self):
        return f"<pre>{escape.html(self.text)}</pre>"


def bounded(result):
    """`result` with every text the cell's code shaped cut to a stated size (MESSAGE_CHARS, CODE_CHARS,
    OUTPUT_CHARS), so neither the HTML nor the text the kernel sends grows with the cell's bytes."""
    def test(outcome):
        where = [[line, escape.cut(function, CODE_CHARS), escape.cut(code, CODE_CHARS)]
                 for line, function, code in outcome.where[-3:]]
        return dataclasses.replace(outcome, message=escape.cut(outcome.message, MESSAGE_CHARS), where=where)

    return dataclasses.replace(result, tests=[test(outcome) for outcome in result.tests],
                               output=escape.cut(result.output, OUTPUT_CHARS))


class Verdict:
    """A check's result as rich output: `_repr_html_` for notebooks, `__repr__` (kata check's text) elsewhere."""

    def __init__(self, result, prompts, error=None, repro=None, verbose=False, commands=None):
        self.result, self.prompts, self.error = result, prompts, error
        self.repro = repro  # (path written, snippet) of the first failure, or None
        self.verbose = verbose  # `%%kata NN --verbose`: the text shows every check
        self.commands = commands  # render.Commands the text points to (None: a cell's, render.NOTEBOOK)
        self.defence = None  # after a pass: the `kata defend` command, plain text (kata defend's hook)

    def __repr__(self):
        if self.error:
            return self.error
        import click

        from checker.present import render

        text = click.unstyle(render.check_text(self.result, self.prompts, self.commands or render.NOTEBOOK,
                                               verbose=self.verbose))
        if self.repro:
            text += (f"\n\nThe first failing call is written to {self.repro[0]} as a snippet: "
                     f"`%run {self.repro[0]}` runs it, `%kata repro {self.result.kata}` shows it.")
        return text + (f"\n{self.defence}" if self.defence else "")

    def _repr_html_(self):
        if self.error:
            return f'<div style="color:#cf222e">{escape.html(self.error)}</div>'
        page = result_html(self.result, self.prompts)
        if self.repro:
            path, code = self.repro
            page += (f"<details><summary>Repro, written to {escape.html(str(path))}: run it with "
                     f"<code>%run {escape.html(str(path))}</code></summary><pre>{escape.html(code)}</pre></details>")
        if Status(self.result.status) != Status.PASSED:
            page += f"<p>Stuck? <code>%kata hint {escape.html(self.result.kata)}</code> gives the next hint.</p>"
        if self.defence:
            page += f"<p>{escape.html(self.defence)}</p>"
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
        parts.append(f"<pre>{escape.html(prompts.task)}</pre>")
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
    tables = [_table(f"{grid.title}: yours", got, allowed, differs, grid.first_row),
              _table("expected", want, allowed, differs & False, grid.first_row)]
    return '<div style="display:flex;gap:2em;flex-wrap:wrap">' + "".join(tables) + "</div>"


def _table(title, values, allowed, differs, first_row=0):
    import numpy as np

    head = "".join(f"<th>k{j}</th>" for j in range(values.shape[1]))
    rows = []
    for i, row in enumerate(values):
        cells = []
        for j, value in enumerate(row):
            text = "·" if not allowed[i, j] and value == 0 else ("nan" if value != value else f"{value:.2f}")
            style = ' style="color:#cf222e;font-weight:bold"' if differs[i, j] else ""
            cells.append(f"<td{style}>{text}</td>")
        rows.append(f"<tr><th>q{first_row + i}</th>{''.join(cells)}<td><i>{np.sum(row):.2f}</i></td></tr>")
    return (f'<table style="font-family:monospace;text-align:right"><caption>{escape.html(title)}</caption>'
            f"<tr><th></th>{head}<th>sum</th></tr>{''.join(rows)}</table>")


"""Text for people. Everything here formats a result it is given; nothing here decides anything."""

import os
import re
from dataclasses import dataclass

import click

from checker.present import escape, layout
from checker.engine.results import Status

SHOWN_FAILURES = 4  # the rest are one `--json` away
STATUS_COLOUR = {Status.PASSED: "green", Status.FAILED: "red", Status.NOT_STARTED: "yellow", Status.ERROR: "red",
                 Status.TIMEOUT: "red"}
_MARK = {Status.FAILED: "✗", Status.ERROR: "!", Status.NOT_STARTED: "·", Status.TIMEOUT: "⏱"}


@dataclass(frozen=True)
class Commands:
    """How the learner, where they are, checks a kata again, sees every check, gets the repro of the first
    failure and the next hint: `kata` at a terminal, the magic in a notebook ({id}: the kata's id)."""
    check: str = "kata check {id}"
    verbose: str = "kata check {id} --verbose"
    repro: str = "kata check {id} --repro"
    hint: str = "kata hint {id}"

    def of(self, verb, kata_id):
        return getattr(self, verb).format(id=kata_id)


TERMINAL = Commands()
# a cell is checked by running it again; its repro is written at each check and shown by the line magic
NOTEBOOK = Commands("%%kata {id}", "%%kata {id} --verbose", "%kata repro {id}", "%kata hint {id}")


def status_label(status):
    """("NOT STARTED", "yellow"): a check's status as its headline shows it, and its colour."""
    status = Status(status)
    return status.value.upper().replace("-", " "), STATUS_COLOUR[status]


def styled_status(status, width=0):
    """A status (a Status, or its value as a progress file or a check object holds it) in its colour;
    a progress file's "unchecked" is not a check's status, and stays plain."""
    if status not in {known.value for known in Status}:
        return f"{status:<{width}}"
    status = Status(status)
    return click.style(f"{status.value:<{width}}", fg=STATUS_COLOUR[status])


def color_wanted():
    """None lets click colour only terminals; NO_COLOR (no-color.org) turns it off everywhere."""
    return False if os.environ.get("NO_COLOR") else None


def check_text(result, prompts=None, commands=TERMINAL, watching=False, strict=False, verbose=False, next_step=None,
               repro=False):
    """A check's result: status line, then each failure with its call, its bug and a fix.

    Failures come most informative first (a named bug with a picture leads). `watching` (kata watch,
    kata mock): the first failure only, and "save" where it says "run". `strict` (a mock interview):
    the status and the failing checks' names, never a bug name, a fix or a picture. `verbose`: every
    check, passed ones too. `next_step`: what to do after a pass, one line. `commands`: how the learner
    spells the commands the text points to (render.TERMINAL, render.NOTEBOOK). `repro`: the repro follows,
    so the line offering it is left out.
    """
    label, colour = status_label(result.status)
    passed = sum(t.outcome == Status.PASSED for t in result.tests)
    lines = [click.style(f"{result.kata} {result.slug}", bold=True) + f"  {escape.terminal(result.file)}"]
    summary = f"{passed} of {len(result.tests)} checks passed"
    if result.bugs and not strict:
        summary += " · bugs: " + ", ".join(result.bugs)
    lines.append(f"{click.style(label, fg=colour, bold=True)}  {summary} · {result.seconds:.2f} s")
    if result.status == Status.NOT_STARTED and result.unreachable:
        lines += [""] + [f"Your code below line {u.raise_line} never runs: {u.function}() still holds the "
                         f"stub's `raise NotImplementedError` ({escape.terminal(result.file)}:{u.raise_line}), so line "
                         f"{u.first_line} and the rest are unreachable. Delete the raise." for u in result.unreachable]
        return "\n".join(layout.fit(lines))
    if result.status == Status.NOT_STARTED:
        lines += ["", "The stub still raises NotImplementedError. The task:", ""]
        if prompts:
            told = prompts.brief if strict else prompts.task  # a strict mock's brief holds no trick
            lines += [layout.Kept(line) for line in layout.reflow(told.splitlines(), layout.current(), "  ")]
        again = (" and save it: each save is checked" if watching
                 else f", then run `{commands.of('check', result.kata)}` again")
        lines += ["", f"Edit {escape.terminal(result.file)}{again}."
                  + ("" if strict else f" Stuck? `{commands.of('hint', result.kata)}`.")]
        return "\n".join(layout.fit(lines))
    if strict:
        lines += _strict_lines(result)
    else:
        lines += _failures_lines(result, prompts, commands, 1 if watching else None if verbose else SHOWN_FAILURES,
                                 repro)
    if verbose:
        lines += [""] + [f"{click.style('✓', fg='green')} {t.name}" for t in result.tests if t.outcome == Status.PASSED]
    if result.output and result.status != Status.PASSED:
        printed = escape.lines(result.output.strip())
        lines += ["", "Your code printed:"] + ["  " + line for line in printed[:5]]
        if len(printed) > 5:
            lines.append(f"  ... ({len(printed) - 5} more lines)")
    if result.status == Status.PASSED:
        lines += ["", "Every check passed."]
        if next_step:
            lines.append(click.style(next_step, bold=True))
    return "\n".join(layout.fit(lines))


def _failures_lines(result, prompts, commands, shown, repro=False):
    failures = _fold_repeated_crashes(result.ranked_failures)
    shown = len(failures) if shown is None else shown
    lines, fixed = [], set()
    for test, repeats in failures[:shown]:
        lines += [""] + _failure_lines(test, result.file, prompts, fixed)
        if repeats:
            lines.append(f"    (the same error in {repeats} more check{'s' if repeats > 1 else ''})")
    hidden = sum(1 + repeats for _, repeats in failures[shown:])
    if hidden:
        lines += ["", f"... and {hidden} more: `{commands.of('verbose', result.kata)}` shows every check."]
    if shown > 1 and not repro and any(test.calls for test, _ in failures):
        lines += ["", f"`{commands.of('repro', result.kata)}` gives the first failing call as a Python snippet "
                      "to run on your code."]
    return lines


def _strict_lines(result):
    """A mock interview's view: which checks fail, and the learner's own crash, nothing that names a bug."""
    lines = [""]
    for test in result.failures:
        mark = click.style(_MARK.get(Status(test.outcome), "✗"), fg="red")
        crash = (test.outcome in (Status.ERROR, Status.TIMEOUT) or test.raised) and not test.bug
        lines.append(f"{mark} {test.name}" + (f": {escape.terminal(test.message)}" if crash else ""))
        if crash:
            lines += [_at(result.file, *where) for where in test.where[-3:]]
    return lines


def summary_lines(results):
    """`kata check --all`'s last lines: one a kata."""
    lines = [click.style("Summary", bold=True)]
    for result in results:
        label, colour = status_label(result.status)
        passed = sum(t.outcome == Status.PASSED for t in result.tests)
        bugs = f"  bugs: {', '.join(result.bugs)}" if result.bugs else ""
        lines.append(f"  {result.kata} {result.slug:<12} {click.style(f'{label:<11}', fg=colour, bold=True)} "
                     f"{passed:>2} of {len(result.tests):>2} checks{bugs}")
    return "\n".join(layout.fit(lines))


def _fold_repeated_crashes(failures):
    """[(failure, how many later ones are the same crash)]: one crash in every check is shown once."""
    shown, repeats = [], {}
    for test in failures:
        key = (test.message.partition(") ")[2], str(test.where)) if test.outcome == Status.ERROR or test.raised else None
        if key and key[0] and key in repeats:
            shown[repeats[key]][1] += 1
            continue
        if key:
            repeats[key] = len(shown)
        shown.append([test, 0])
    return shown


def _failure_lines(test, file, prompts, fixed=None):
    """One failure: its message, picture, lines of the learner's file and bug; the bug's fix only the first
    time it is named (`fixed`: the bugs whose fix is shown already)."""
    mark = click.style(_MARK.get(Status(test.outcome), "✗"), fg="red")
    # A hidden test's message may be laid out in lines (kata 09's top-p table, kata 12's two hypotheses): they
    # stay lines. Learner text cannot add any: LearnerError puts what it quotes on one line.
    first, *rest = escape.lines(test.message)
    rows = [layout.Row(line) if re.search(r"\S {2,}\S", line) else line for line in rest]  # a table's rows
    lines = [f"{mark} {click.style(test.name, bold=True)}: {first}"] + rows
    if test.picture is not None:
        width = layout.current()
        lines += [layout.Kept("    " + line) for line in grid_lines(test.picture, None if width is None else width - 4)]
    lines += [_at(file, *where) for where in test.where[-3:]]
    if test.bug:
        fix = prompts.fixes.get(test.bug) if prompts and test.bug not in (fixed or ()) else None
        if fixed is not None:
            fixed.add(test.bug)
        lines.append("    -> " + click.style(test.bug, fg="magenta", bold=True) + (f". Fix: {fix}" if fix else ""))
    return lines


def _at(file, line, function, code):
    """A frame of the learner's code: its file, line, function and the line's code (all of them its own)."""
    return "    at " + escape.terminal(f"{file}:{line} in {function}: {code}")


GRID_MAX = 8  # bigger tables are described, not drawn
_CELL = 6


def grid_cells(grid):
    """(got, want, allowed, differs) of a weight picture worth drawing, or None (not two equal 2-D tables of at
    most GRID_MAX a side): what every renderer of the picture (terminal, notebook) draws from."""
    import numpy as np  # NumPy loads while the learner's process starts: `kata check` imports this module first

    got, want = np.asarray(grid.got, np.float64), np.asarray(grid.want, np.float64)
    if got.shape != want.shape or got.ndim != 2 or max(got.shape) > GRID_MAX:
        return None
    allowed = np.ones(got.shape, bool) if grid.allowed is None else np.broadcast_to(grid.allowed, got.shape)
    with np.errstate(invalid="ignore"):
        differs = ~(np.isclose(got, want, rtol=1e-3, atol=1e-3) | (np.isnan(got) & np.isnan(want)))
    return got, want, allowed, differs


def grid_lines(grid, width=None):
    """The learner's weights beside the expected ones, one row per query, with each row's sum; the two
    stacked, yours first, when side by side they would not fit `width` columns (after a 4-space indent).

    Blocked cells show `·` (a blocked cell that got weight shows its value); a cell that differs from
    the expected one is marked `*` and coloured, so the picture survives NO_COLOR.
    """
    drawn = grid_cells(grid)
    if drawn is None:
        return []
    got, want, allowed, differs = drawn
    import numpy as np

    with np.errstate(invalid="ignore"):  # a negative value fills a cell: one more column keeps cells apart
        cell = _CELL + bool((got < 0).any() or (want < 0).any())
    keys = "".join(f"{'k' + str(j):>{cell}}" for j in range(got.shape[1])) + "    sum"
    block = len(keys) + 4
    mine = [f"{'q' + str(grid.first_row + i):<4}" + "".join(_cell(got[i, j], allowed[i, j], differs[i, j], cell) for j in range(got.shape[1]))
            + _sum(got[i], want[i]) for i in range(got.shape[0])]
    right = [f"{'q' + str(grid.first_row + i):<4}" + "".join(_cell(want[i, j], allowed[i, j], False, cell) for j in range(got.shape[1]))
             + _sum(want[i], want[i]) for i in range(got.shape[0])]
    if width is not None and 2 * block + 3 > width:  # stacked: yours, then the expected ones
        return [layout.Kept(line) for line in [f"    {grid.title}: yours", f"    {keys}", *mine, "    expected",
                                                f"    {keys}", *right]]
    lines = [f"{'    ' + grid.title + ': yours':<{block}}   expected", f"    {keys}   {'':4}{keys}"]
    lines += [f"{a}   {b}" for a, b in zip(mine, right)]
    return [layout.Kept(line) for line in lines]


def _cell(value, allowed, differs, width=_CELL):
    if not allowed and value == 0:
        text = "·"
    elif value != value:  # NaN
        text = "nan"
    else:
        text = f"{value:.2f}"
    text = f"{text}{'*' if differs else ' '}"
    text = f"{text:>{width}}"
    return click.style(text, fg="red", bold=True) if differs else text


def _sum(row, right_row):
    import numpy as np  # NumPy loads while the learner's process starts: `kata check` imports this module first

    total = np.sum(row)
    text = f"{total:7.2f}"
    wrong = not np.isclose(total, np.sum(right_row), atol=1e-3) and not (np.isnan(total) and np.isnan(np.sum(right_row)))
    return click.style(text, fg="red", bold=True) if wrong else text


def question_text(asked, number, total):
    q = asked.question
    lines = [click.style(f"Question {number} of {total}", bold=True) + f"  ({q.kata}, {q.kind})", asked.prompt]
    lines += [f"  {chr(ord('a') + i)}) {text}" for i, text in enumerate(asked.choices)]
    return "\n".join(layout.fit(lines))


def unreadable_text(asked, reply, hedged=False):
    """A reply that reads as no option and no number: said so, and asked again (never marked wrong).
    `hedged`: it said "about" where the question wants the exact figure."""
    if hedged:
        want = "an exact figure: this question wants the number itself, without `about` or `~`"
    elif asked.choices:
        want = f"a letter (a to {chr(ord('a') + len(asked.choices) - 1)}) or the start of an option"
    else:
        want = "a number, a shape or arithmetic (`2^28`, `1/sqrt(64)`)"
    said = click.style("Could not read that", fg="yellow", bold=True) + f" ({escape.terminal(reply.strip())!r}) as {want}."
    return "\n".join(layout.fit([said + " Try again:"]))


def verdict_text(asked):
    if asked.correct:
        head = click.style("Right.", fg="green", bold=True)
    elif asked.given is None:
        head = click.style("Unanswered.", fg="yellow", bold=True) + f" The answer: {asked.answer_text}"
    else:
        head = click.style("Not quite.", fg="red", bold=True) + f" The answer: {asked.answer_text}"
    return "\n".join(layout.fit([head, *asked.explanation.splitlines()])) + "\n"


def score_text(correct, asked, replay, answered=None):
    """The score, and the exact command that asks the same questions again (None: there is none);
    `answered`: stopped after that many."""
    if answered is not None and answered < asked:
        head = f"Stopped. Score so far: {correct} of {answered} answered ({asked} asked)"
    else:
        head = f"Score: {correct} of {asked}"
    again = f"  (`{replay}` asks the same questions again)" if replay else ""
    return "\n".join(layout.fit([click.style(head, bold=True) + again]))


def duration(seconds):
    """42 s, 4 min 05 s, 1 h 02 min; "-" for None (never)."""
    if seconds is None:
        return "-"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def clock_text(seconds):
    """Time left as mm:ss."""
    seconds = max(0, int(seconds + 0.999))  # 0:00 only when no time is left
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


# --- kata watch and kata mock ----------------------------------------------------------------------

def watch_text(result, prompts, number, at, banner=None, next_step=None):
    """One screen of `kata watch`: what is watched, then the status and the first failure."""
    head = click.style(f"kata watch {result.kata}", bold=True)
    lines = [f"{head}  check {number} at {at:%H:%M:%S} · save any kata to check it · Ctrl-C leaves", ""]
    if banner:
        lines += [click.style(banner, fg="green", bold=True), ""]
    return "\n".join(layout.fit(lines) + [check_text(result, prompts, watching=True, next_step=next_step)])


def mock_screen(kata, prompts, seconds_left, file, questions, result=None, attempts=0, strict=True, why=None):
    """One screen of `kata mock`: the clock, the brief, and the last check's status and first failure."""
    head = click.style(f"Mock interview: {kata.id} {kata.slug}", bold=True)
    lines = [f"{head}  {click.style(clock_text(seconds_left) + ' left', fg='cyan', bold=True)}"]
    if why:
        lines.append(why)
    # the mock's own file, not the learner's; strict: the task and its contract, never the method (the trick)
    brief = (prompts.brief if strict else prompts.task).replace(f"katas/{kata.filename}", file)
    lines += ["", click.style(prompts.title, bold=True)]
    lines += [layout.Kept(line) for line in layout.reflow(brief.splitlines(), layout.current(), "  ")] + [""]
    if result is None:
        lines.append(f"Edit {file} (a fresh stub): each save is checked. Once it passes, "
                     f"{layout.counted(questions, 'question')} follow. Ctrl-C stops (the report is still written).")
        lines.append("Strict mode: the checks that fail, no bug names and no fixes (`--coach` shows them)."
                     if strict else "Coach mode: failures name the bug and its fix.")
    elif result.status != Status.NOT_STARTED:
        lines += [f"Attempt {attempts}:"] + [layout.Kept(line) for line in check_text(
            result, prompts, watching=True, strict=strict).splitlines()]
    else:
        lines.append(f"Attempt {attempts}: the stub still raises NotImplementedError. Edit {file} and save.")
    return "\n".join(layout.fit(lines))


# --- kata dev check ----------------------------------------------------------------------------------

def dev_check_text(report):
    """`kata dev check`: each kata with `ok` or the list of what it lacks, then a summary line."""
    lines = []
    for kata in report.katas:
        verdict = click.style("ok", fg="green") if kata.ok else click.style(
            f"{len(kata.problems)} missing or inconsistent", fg="red", bold=True)
        lines.append(f"{click.style(f'{kata.id} {kata.slug}', bold=True)}  {verdict}")
        lines += [f"  - {problem}" for problem in kata.problems]
    lacking = sum(not kata.ok for kata in report.katas)
    lines += ["", f"{len(report.katas) - lacking} of {len(report.katas)} katas complete"
              + ("" if report.ok else f"; {lacking} lack{'s' if lacking == 1 else ''} something (see above)")]
    return "\n".join(lines)

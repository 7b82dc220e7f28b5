"""Text for people. Everything here formats a result it is given; nothing here decides anything."""

import os

import click

from checker import catalog
from checker.results import Status

SHOWN_FAILURES = 4  # the rest are one `--json` away
_STATUS_STYLE = {Status.PASSED: ("PASSED", "green"), Status.FAILED: ("FAILED", "red"),
                 Status.NOT_STARTED: ("NOT STARTED", "yellow"), Status.ERROR: ("ERROR", "red"),
                 Status.TIMEOUT: ("TIMEOUT", "red")}
_MARK = {"failed": "✗", "error": "!", "not-started": "·", "timeout": "⏱"}


def color_wanted():
    """None lets click colour only terminals; NO_COLOR (no-color.org) turns it off everywhere."""
    return False if os.environ.get("NO_COLOR") else None


def check_text(result, prompts=None, command="kata", watching=False):
    """A check's result: status line, then each failure with its call, its bug and a fix.

    `watching` (kata watch, kata mock): the first failure only, and "save" where it says "run".
    """
    label, colour = _STATUS_STYLE[result.status]
    passed = sum(t.outcome == "passed" for t in result.tests)
    lines = [click.style(f"{result.kata} {result.slug}", bold=True) + f"  {result.file}"]
    summary = f"{passed} of {len(result.tests)} checks passed"
    if result.bugs:
        summary += " · bugs: " + ", ".join(result.bugs)
    lines.append(f"{click.style(label, fg=colour, bold=True)}  {summary} · {result.seconds:.2f} s")
    if result.status == Status.NOT_STARTED:
        lines += ["", "The stub still raises NotImplementedError. The task:", ""]
        if prompts:
            lines += ["  " + line for line in prompts.brief.splitlines()]
        again = (" and save it: each save is checked" if watching
                 else f", then run `{command} check {result.kata}` again")
        lines += ["", f"Edit {result.file}{again}. Stuck? `{command} hint {result.kata}`."]
        return "\n".join(lines)
    failures = _distinct(result.failures)
    shown = 1 if watching else SHOWN_FAILURES
    for test, repeats in failures[:shown]:
        lines += [""] + _failure_lines(test, result.file, prompts)
        if repeats:
            lines.append(f"    (the same error in {repeats} more check{'s' if repeats > 1 else ''})")
    hidden = sum(1 + repeats for _, repeats in failures[shown:])
    if hidden:
        lines += ["", f"... and {hidden} more: `{command} check {result.kata} --json` lists every check."]
    if result.output and result.status != Status.PASSED:
        printed = result.output.strip().splitlines()
        lines += ["", "Your code printed:"] + ["  " + line for line in printed[:5]]
        if len(printed) > 5:
            lines.append(f"  ... ({len(printed) - 5} more lines)")
    if result.status == Status.PASSED:
        lines += ["", "Every check passed."]
    return "\n".join(lines)


def _distinct(failures):
    """[(failure, how many later ones are the same crash)]: one crash in every check is shown once."""
    shown, repeats = [], {}
    for test in failures:
        key = (test.message.partition(" raised ")[2], str(test.where)) if test.outcome == "error" else None
        if key and key[0] and key in repeats:
            shown[repeats[key]][1] += 1
            continue
        if key:
            repeats[key] = len(shown)
        shown.append([test, 0])
    return shown


def _failure_lines(test, file, prompts):
    mark = click.style(_MARK.get(test.outcome, "✗"), fg="red")
    lines = [f"{mark} {click.style(test.name, bold=True)}: {test.message}"]
    if test.picture is not None:
        lines += ["    " + line for line in grid_lines(test.picture)]
    for line, function, code in test.where[-3:]:
        lines.append(f"    at {file}:{line} in {function}: {code}")
    if test.bug:
        fix = prompts.fixes.get(test.bug) if prompts else None
        lines.append("    -> " + click.style(test.bug, fg="magenta", bold=True) + (f". Fix: {fix}" if fix else ""))
    return lines


GRID_MAX = 8  # bigger tables are described, not drawn
_CELL = 6


def grid_lines(grid):
    """The learner's weights beside the expected ones, one row per query, with each row's sum.

    Blocked cells show `·` (a blocked cell that got weight shows its value); a cell that differs from
    the expected one is marked `*` and coloured, so the picture survives NO_COLOR.
    """
    import numpy as np

    got, want = np.asarray(grid.got, np.float64), np.asarray(grid.want, np.float64)
    if got.shape != want.shape or got.ndim != 2 or max(got.shape) > GRID_MAX:
        return []
    allowed = np.ones(got.shape, bool) if grid.allowed is None else np.broadcast_to(grid.allowed, got.shape)
    with np.errstate(invalid="ignore"):
        differs = ~(np.isclose(got, want, rtol=1e-3, atol=1e-3) | (np.isnan(got) & np.isnan(want)))
    keys = "".join(f"{'k' + str(j):>{_CELL}}" for j in range(got.shape[1])) + "    sum"
    width = len(keys) + 4
    lines = [f"{'    ' + grid.title + ': yours':<{width}}   expected", f"    {keys}   {'':4}{keys}"]
    for i in range(got.shape[0]):
        mine = "".join(_cell(got[i, j], allowed[i, j], differs[i, j]) for j in range(got.shape[1]))
        right = "".join(_cell(want[i, j], allowed[i, j], False) for j in range(got.shape[1]))
        lines.append(f"q{i:<3}{mine}{_sum(got[i], want[i])}   q{i:<3}{right}{_sum(want[i], want[i])}")
    return lines


def _cell(value, allowed, differs):
    if not allowed and value == 0:
        text = "·"
    elif value != value:  # NaN
        text = "nan"
    else:
        text = f"{value:.2f}"
    text = f"{text}{'*' if differs else ' '}"
    text = f"{text:>{_CELL}}"
    return click.style(text, fg="red", bold=True) if differs else text


def _sum(row, right_row):
    import numpy as np

    total = np.sum(row)
    text = f"{total:7.2f}"
    wrong = not np.isclose(total, np.sum(right_row), atol=1e-3) and not (np.isnan(total) and np.isnan(np.sum(right_row)))
    return click.style(text, fg="red", bold=True) if wrong else text


def question_text(asked, number, total):
    q = asked.question
    lines = [click.style(f"Question {number} of {total}", bold=True) + f"  ({q.kata}, {q.kind})", asked.prompt]
    lines += [f"  {chr(ord('a') + i)}) {text}" for i, text in enumerate(asked.choices)]
    return "\n".join(lines)


def verdict_text(asked):
    from checker.quiz import expected_text

    if asked.correct:
        head = click.style("Right.", fg="green", bold=True)
    elif asked.given is None:
        head = click.style("Unanswered.", fg="yellow", bold=True) + f" The answer: {expected_text(asked)}"
    else:
        head = click.style("Not quite.", fg="red", bold=True) + f" The answer: {expected_text(asked)}"
    return f"{head}\n{asked.explanation}\n"


def score_text(correct, asked, seed):
    return (click.style(f"Score: {correct} of {asked}", bold=True)
            + f"  (`kata quiz --seed {seed}` asks the same questions again)")


def list_text(rows):
    """`kata list`: one line a kata. rows: (kata, title, progress.KataProgress)."""
    styles = {"passed": "green", "failed": "red", "error": "red", "timeout": "red", "not-started": "yellow"}
    lines = [f"{'id':<3} {'kata':<12} {'':<32} {'status':<12} {'attempts':>8} {'hints':>6}  first pass after"]
    for kata, title, entry in rows:
        status = click.style(f"{entry.status:<12}", fg=styles.get(entry.status))
        lines.append(f"{kata.id:<3} {kata.slug:<12} {title:<32} {status} {entry.attempts:>8} {entry.hints_used:>6}  "
                     f"{duration(entry.seconds_to_pass)}")
    return "\n".join(lines)


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

def watch_text(result, prompts, number, at):
    """One screen of `kata watch`: what is watched, then the status and the first failure."""
    head = click.style(f"kata watch {result.kata}", bold=True)
    return "\n".join([f"{head}  check {number} at {at:%H:%M:%S} · save to check again · Ctrl-C leaves", "",
                      check_text(result, prompts, watching=True)])


def mock_screen(kata, prompts, seconds_left, file, questions, result=None, attempts=0):
    """One screen of `kata mock`: the clock, the brief, and the last check's status and first failure."""
    head = click.style(f"Mock interview: {kata.id} {kata.slug}", bold=True)
    lines = [f"{head}  {click.style(clock_text(seconds_left) + ' left', fg='cyan', bold=True)}", "",
             click.style(prompts.title, bold=True)] + ["  " + line for line in prompts.brief.splitlines()] + [""]
    if result is None:
        lines.append(f"Edit {file}: each save is checked. Once it passes, {questions} questions follow. "
                     "Ctrl-C stops (the report is still written).")
    elif result.status != Status.NOT_STARTED:
        lines += [f"Attempt {attempts}:", check_text(result, prompts, watching=True)]
    else:
        lines.append(f"Attempt {attempts}: the stub still raises NotImplementedError. Edit {file} and save.")
    return "\n".join(lines)


def mock_markdown(report):
    """The mock's report for people, as Markdown."""
    passed = report.seconds_to_pass is not None
    quiz = report.quiz
    rows = [("status", report.status),
            ("time to pass", f"{duration(report.seconds_to_pass)} of {report.minutes:g} min" if passed else "-"),
            ("attempts", report.attempts),
            ("bugs hit", ", ".join(_code(bug) for bug in report.bugs_hit) or "none"),
            ("hints used", report.hints_used),
            ("quiz", f"{quiz.correct} of {quiz.asked}" if quiz.asked else "not reached"),
            ("started", report.started), ("ended", report.ended),
            ("seed", f"{report.seed} (`kata mock --kata {report.kata} --seed {report.seed}` asks the same questions)")]
    lines = [f"# Mock interview: {report.kata} {report.slug}", "", "| | |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    if quiz.questions:
        lines += ["", "## Quiz", ""]
        for number, answer in enumerate(quiz.questions, start=1):
            prompt = answer.prompt.replace("\n", "\n   ")
            verdict = "right" if answer.correct else ("unanswered" if answer.given is None else "wrong")
            given = "-" if answer.given is None else _code(answer.given)
            lines += [f"{number}. {prompt}", f"   expected {_code(answer.expected)}, given {given}: **{verdict}**", ""]
    return "\n".join(lines).rstrip() + "\n"


def _code(text):
    """Markdown inline code that survives a backtick inside."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


BAR_WIDTH = 36  # characters of the longest bar in `kata bench`'s plot


def bench_text(result):
    """`kata bench`: the table of times per token, a log-scale bar plot of it, and what the cache buys."""
    lines = [click.style(f"{result.kata} {result.slug}", bold=True) + f"  {result.file}",
             f"Time to make one new token (median of {result.steps} decode steps; b={result.batch}, "
             f"d_model={result.d_model}, {result.n_heads} heads):", "",
             f"{'n':>7}  {'yours':>10}  {'reference':>10}  {'recompute':>10}  {'cache speed-up':>14}"]
    for row in result.rows:
        lines.append(f"{row.n:>7}  {_ms(row.yours):>10}  {_ms(row.reference):>10}  {_ms(row.recompute):>10}  "
                     f"{row.speedup:>13.1f}x")
    lines += ["", "recompute = kata 04's attention over all n + 1 tokens, from scratch, for every new token", ""]
    lines += _bench_plot(result.rows)
    first, last = result.rows[0], result.rows[-1]
    lines += ["", click.style(f"Speed-up at n = {last.n}: {_times(last.speedup)}", bold=True) +
              f" (your cache {_ms(last.yours)} per token, recomputing {_ms(last.recompute)})."]
    if len(result.rows) > 1:
        lines.append(f"From n = {first.n} to {last.n} ({last.n / first.n:g}x the context) your decode step took "
                     f"{last.yours / first.yours:.1f}x as long, recomputing {last.recompute / first.recompute:.1f}x.")
    if not result.matches_reference:
        lines += ["", click.style("Your decode outputs differ from the reference's: "
                                  f"`kata check {result.kata}` says what is wrong.", fg="yellow")]
    return "\n".join(lines)


def _times(ratio):
    return f"{ratio:.1f}x" if ratio < 10 else f"{ratio:.0f}x"


def _ms(seconds):
    return f"{seconds * 1000:.3f} ms" if seconds < 0.01 else f"{seconds * 1000:.1f} ms"


def _bench_plot(rows):
    """Horizontal bars on a log scale (a constant ratio is a constant length), three per cache length."""
    import math

    values = [v for row in rows for v in (row.yours, row.reference, row.recompute) if v > 0]
    if not values:
        return []
    low, high = min(values), max(values)
    span = math.log(high / low) if high > low else 1.0
    lines = [f"log scale, {_ms(low)} to {_ms(high)}:"]
    for row in rows:
        for label, value in (("yours", row.yours), ("reference", row.reference), ("recompute", row.recompute)):
            length = 1 + round((BAR_WIDTH - 1) * math.log(value / low) / span) if value > 0 else 0
            n = f"n = {row.n}" if label == "yours" else ""
            lines.append(f"  {n:>8}  {label:<9}  {'█' * length:<{BAR_WIDTH}}  {_ms(value)}")
    return lines


# --- kata pack and kata grade ---------------------------------------------------------------------

def pack_text(pack):
    """`kata pack`: what was written, how to make it again, what to do next."""
    ids = ",".join(kata.id for kata in pack.katas)
    lines = [click.style(f"Packed {len(pack.katas)} kata{'s' if len(pack.katas) > 1 else ''}", bold=True)
             + f" ({ids}, seed {pack.seed}, {pack.minutes} minutes) into {pack.folder}/:"]
    lines += [f"  {name}" for name in pack.files]
    lines += ["", "The same pack again: " + f"kata pack OTHER_DIR --katas {ids} --seed {pack.seed}",
              f"Hand {pack.folder}/ to the candidate; grade it with: kata grade {pack.folder}"]
    return "\n".join(lines)


_GRADE_STYLE = {"passed": "green", "failed": "red", "error": "red", "timeout": "red", "not-started": "yellow"}


def grade_text(report, report_path=None):
    """`kata grade`: one line per workspace, then the totals."""
    width = max((len(w.path) for w in report.workspaces), default=0)
    lines = []
    for workspace in report.workspaces:
        cells = []
        for row in workspace.rows:
            cell = f"{row.kata} " + click.style(row.status, fg=_GRADE_STYLE.get(row.status))
            cells.append(cell + (f" ({', '.join(row.bugs)})" if row.bugs else ""))
        lines.append(f"{workspace.path:<{width}}  " + " · ".join(cells))
    counts = ", ".join(f"{count} {status}" for status, count in report.by_status.items() if count)
    lines += ["", click.style(f"{len(report.workspaces)} workspaces, {len(report.rows)} checks", bold=True)
              + f" in {report.seconds:.1f} s ({report.jobs} jobs): {counts or 'nothing to grade'}"]
    if report.resumed:
        lines.append(f"{report.resumed} of them finished in an earlier run ({report.state}), not graded again")
    if report_path:
        lines.append(f"Report: {report_path}")
    return "\n".join(lines)


def grade_markdown(report):
    """The report file: one row per candidate and kata, then totals per kata and per status."""
    def cell(text):
        return str(text).replace("|", "\\|")

    lines = ["# Kata grading report", "",
             f"{len(report.workspaces)} workspaces, {len(report.rows)} checks, graded in {report.seconds:.1f} s "
             f"with {report.jobs} jobs. Each kata ran in its own sandbox with the hidden tests of the seed shown.",
             "", "| candidate | seed | kata | status | bugs named | seconds |", "|---|---|---|---|---|---:|"]
    for row in report.rows:
        lines.append(f"| {cell(row.workspace)} | {row.seed} | {row.kata} {row.slug} | {row.status} | "
                     f"{cell(', '.join(row.bugs))} | {row.seconds:.2f} |")
    lines += ["", "## Totals per kata", "", "| kata | " + " | ".join(STATUS_ORDER) + " | seconds |",
              "|---|" + "---:|" * (len(STATUS_ORDER) + 1)]
    for kata, (counts, seconds) in report.by_kata.items():
        cells = " | ".join(str(counts[status]) for status in STATUS_ORDER)
        lines.append(f"| {kata} {catalog.find(kata).slug} | {cells} | {seconds:.1f} |")
    lines += ["", "## Totals per status", "", "| status | checks |", "|---|---:|"]
    lines += [f"| {status} | {count} |" for status, count in report.by_status.items()]
    return "\n".join(lines) + "\n"


STATUS_ORDER = [status.value for status in Status]

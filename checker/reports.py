"""Reports for people, as text and Markdown: a mock interview, `kata bench`, a pack, a batch of grades.

Like render.py, everything here formats a result it is given; nothing here decides anything.
"""

import math

import click

from checker import escape
from checker.render import duration, styled_status
from checker.results import Status


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
             f"Time to make one new token (the median of {result.rounds} rounds of {result.steps} decode steps; "
             f"b={result.batch}, d_model={result.d_model}, {result.n_heads} heads):", "",
             f"{'n':>7}  {'yours':>10}  {'reference':>10}  {'recompute':>10}  {'cache speed-up':>14}  {'spread':>7}"]
    for row in result.rows:
        lines.append(f"{row.n:>7}  {_ms(row.yours):>10}  {_ms(row.reference):>10}  {_ms(row.recompute):>10}  "
                     f"{row.speedup:>13.1f}x  {row.spread:>6.0%}")
    lines += ["", "recompute = kata 04's attention over all n + 1 tokens, from scratch, for every new token",
              "spread = (slowest - fastest round) / median, the largest of the three columns: above ~50%, "
              "the machine was busy; run again", ""]
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
             + f" ({ids}, seed {pack.seed}, {pack.minutes} minutes) into {escape.terminal(pack.folder)}/:"]
    lines += [f"  {escape.terminal(name)}" for name in pack.files]
    if pack.roster:
        lines.append(f"Recorded in {pack.roster} (keep it: `kata grade` trusts it, not the pack's manifest)")
    lines += ["", "The same pack again: " + f"kata pack OTHER_DIR --katas {ids} --seed {pack.seed}",
              f"Hand {escape.terminal(pack.folder)}/ to the candidate; grade it with: kata grade "
              f"{escape.terminal(pack.folder)}"]
    return "\n".join(lines)


def isolation_text(isolation):
    """One sentence: which walls stood around candidate code."""
    if not isolation:
        return "Isolation: not recorded."
    walls = ", ".join(isolation["applied"]) or "none"
    if isolation["level"] == "full":
        return f"Isolation: full ({walls})."
    missing = "; ".join(f"{wall}: {why}" for wall, why in isolation["missing"].items())
    return f"Isolation: REDUCED, graded with --insecure ({walls}; missing {missing}). Grades could be forged."


def grade_text(report, report_path=None):
    """`kata grade`: one line per workspace (and its flags), then the totals."""
    width = max((len(escape.terminal(w.path)) for w in report.workspaces), default=0)
    lines = []
    for workspace in report.workspaces:
        cells = []
        if workspace.error:
            cells.append(click.style("error", fg="red") + f": {escape.terminal(workspace.error)}")
        for row in workspace.rows if not workspace.error else []:
            cell = f"{row.kata} " + styled_status(row.status)
            notes = row.bugs + (["review"] if row.review else [])
            cells.append(cell + (f" ({escape.terminal(', '.join(notes))})" if notes else ""))
        lines.append(f"{escape.terminal(workspace.path):<{width}}  " + " · ".join(cells))
        lines += [f"{'':<{width}}  ! {escape.terminal(flag)}" for flag in workspace.flags]
    counts = ", ".join(f"{count} {status}" for status, count in report.by_status.items() if count)
    lines += ["", click.style(f"{len(report.workspaces)} workspaces, {len(report.rows)} checks", bold=True)
              + f" in {report.seconds:.1f} s ({report.jobs} jobs): {counts or 'nothing to grade'}",
              isolation_text(report.isolation)]
    if report.resumed:
        lines.append(f"{report.resumed} of them finished in an earlier run ({escape.terminal(report.state)}), "
                     "not graded again")
    if report_path:
        lines.append(f"Report: {escape.terminal(report_path)}")
    return "\n".join(lines)


def grade_markdown(report):
    """The report file: one row per candidate and kata, the flags, then totals per kata and per status."""
    cell = escape.markdown

    lines = ["# Kata grading report", "",
             f"{len(report.workspaces)} workspaces, {len(report.rows)} checks, graded in {report.seconds:.1f} s "
             f"with {report.jobs} jobs. Each kata ran in its own sandbox with the hidden tests of the seed shown.",
             "", isolation_text(report.isolation), "",
             "| candidate | seed | kata | status | bugs named | review | seconds | sha256 |",
             "|---|---|---|---|---|---|---:|---|"]
    for row in report.rows:
        notes = row.review
        lines.append(f"| {cell(row.workspace)} | {row.seed} | {cell(row.kata)} {cell(row.slug)} | {cell(row.status)} | "
                     f"{cell(', '.join(row.bugs))} | {cell('; '.join(notes))} | {row.seconds:.2f} | "
                     f"{cell(row.sha256 or '-')} |")
    flagged = [w for w in report.workspaces if w.flags or w.error]
    if flagged:
        lines += ["", "## Flags", ""]
        for workspace in flagged:
            lines += [f"- {cell(workspace.path)}: {cell(text)}" for text in
                      ([f"not graded: {workspace.error}"] if workspace.error else []) + workspace.flags]
    slugs = {row.kata: row.slug for row in report.rows}
    lines += ["", "## Totals per kata", "", "| kata | " + " | ".join(status.value for status in Status) + " | seconds |",
              "|---|" + "---:|" * (len(Status) + 1)]
    for kata, (counts, seconds) in report.by_kata.items():
        if kata == "-":
            continue
        cells = " | ".join(str(counts[status.value]) for status in Status)
        lines.append(f"| {kata} {slugs[kata]} | {cells} | {seconds:.1f} |")
    lines += ["", "## Totals per status", "", "| status | checks |", "|---|---:|"]
    lines += [f"| {status} | {count} |" for status, count in report.by_status.items()]
    return "\n".join(lines) + "\n"

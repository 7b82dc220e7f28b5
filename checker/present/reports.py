"""Reports for people, as text and Markdown: a mock interview and `kata bench` (a batch of grades: hiring/report.py).

Like render.py, everything here formats a result it is given; nothing here decides anything.
"""

import math

import click

from checker.present import escape, layout
from checker.present.render import duration


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
            ("started", report.started), ("ended", report.ended), ("seed", report.seed)]
    lines = [f"# Mock interview: {report.kata} {report.slug}", "", "| | |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    lines += ["", f"`kata mock --kata {report.kata} --seed {report.seed}` asks the same questions."]
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
    lines = [click.style(f"{result.kata} {result.slug}", bold=True) + f"  {escape.terminal(result.file)}",
             f"Time to make one new token (the median of {result.rounds} rounds of {result.steps} decode steps; "
             f"b={result.batch}, d_model={result.d_model}, {result.n_heads} heads):", "",
             f"{'n':>7}  {'yours':>10}  {'reference':>10}  {'recompute':>10}  {'cache speed-up':>14}  {'spread':>7}"]
    for row in result.rows:
        lines.append(layout.Kept(f"{row.n:>7}  {_ms(row.yours):>10}  {_ms(row.reference):>10}  "
                                 f"{_ms(row.recompute):>10}  {row.speedup:>13.1f}x  {row.spread:>6.0%}"))
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
    return "\n".join(layout.fit(lines))


def fitted_markdown(markdown):
    """A Markdown report as the terminal shows it: its prose wrapped at words to the width (a quiz prompt under
    its number), its table rows as they are."""
    lines = [layout.Kept(line) if line.startswith("|") else line for line in markdown.splitlines()]
    return "\n".join(layout.fit(lines))


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
            lines.append(layout.Kept(f"  {n:>8}  {label:<9}  {'█' * length:<{BAR_WIDTH}}  {_ms(value)}"))
    return lines

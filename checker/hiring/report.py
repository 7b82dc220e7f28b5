"""A pack and a graded batch for people: `kata pack`'s and `kata grade`'s text, and the Markdown report.

The Markdown report is the document a manager forwards: its first screen is the ranking (total, each
kata's score, time used, over time, the most severe concern), then the similar pairs and kata 10's
planted bugs, then per candidate the katas and every concern, ranked. Like exports.py it formats what it
is given and decides nothing; every candidate-derived text is escaped for its channel (checker/present/escape.py:
a path, a flag or a message may hold `|`, `<`, backticks, a newline or a terminal escape).
"""

import click

from checker.present import escape
from checker.hiring import concerns as ranked
from checker.hiring import similarity_view
from checker.present.render import duration, styled_status
from checker.engine.results import Status

md = escape.markdown  # every candidate-derived text of the Markdown report goes through it


def pack_text(pack):
    """`kata pack`: what was written, how to make it again, what to do next."""
    ids = ",".join(kata.id for kata in pack.katas)
    lines = [click.style(f"Packed {len(pack.katas)} kata{'s' if len(pack.katas) > 1 else ''}", bold=True)
             + f" ({ids}, seed {pack.seed}, {pack.minutes} minutes) into {escape.terminal(pack.folder)}/:"]
    lines += [f"  {escape.terminal(name)}" for name in pack.files]
    if pack.roster:
        lines.append(f"Recorded in {escape.terminal(pack.roster)} as pack {pack.pack_id}, sealed with the team's key "
                     "beside it "
                     "(keep both, hand out the pack only: `kata grade` trusts the roster, not the pack's manifest)")
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
    jobs = f"{report.jobs} job{'s' if report.jobs != 1 else ''}"
    lines += ["", click.style(f"{len(report.workspaces)} workspaces, {len(report.rows)} checks", bold=True)
              + f" in {report.seconds:.1f} s ({jobs}): {counts or 'nothing to grade'}",
              isolation_text(report.isolation)]
    if report.resumed:
        lines.append(f"{report.resumed} of them finished in an earlier run ({escape.terminal(report.state)}), "
                     "not graded again")
    if report.ignored:
        lines.append(f"{report.ignored} line{'s' if report.ignored > 1 else ''} of the state file "
                     f"{'were' if report.ignored > 1 else 'was'} ignored: not signed by this grader's key")
    if report_path:
        lines.append(f"Report: {escape.terminal(report_path)}")
    return "\n".join(lines)


# --- the Markdown report ------------------------------------------------------------------------------

def grade_markdown(batch):
    """The report file: the ranking first, then the pairs, kata 10's plants, each candidate and the totals."""
    report = batch.report
    katas = sorted({kata.kata: kata.slug for c in batch.candidates for kata in c.katas}.items())
    lines = ["# Kata grading report", "",
             f"{len(batch.candidates)} candidates, {len(report.rows)} checks, graded in {report.seconds:.1f} s. "
             "Total: each kata's score (the weighted share of its hidden checks passed) weighted by the team's "
             "rubric. Time used: from the pack's issue to the newest kata file, on the candidate's own clock.",
             "", isolation_text(report.isolation), "", "## Ranking", "",
             "| # | candidate | total | " + " | ".join(f"{kata} {slug}" for kata, slug in katas) +
             " | time used | flags |", "|---:|---|---:|" + "---:|" * len(katas) + "---|---|"]
    for c in batch.candidates:
        scores = {kata.kata: kata for kata in c.katas}
        cells = [_score_cell(scores.get(kata)) for kata, _ in katas]
        used = "-" if c.span_seconds is None else duration(c.span_seconds) + (f" of {c.minutes} min" if c.minutes
                                                                              else "")
        others = sorted({p.other(c.path) for p in c.similar})
        notes = (["**over time**"] if c.over_time else []) + \
            ([f"similar to {md(', '.join(others))} (kata {', '.join(sorted({p.kata for p in c.similar}))})"]
             if others else [])
        worst = [concern for concern in ranked.of_candidate(c) if concern.severity in (ranked.TAMPERING,
                                                                                       ranked.ESCAPE, ranked.RECORD)]
        notes += [f"**{worst[0].label}**: {md(worst[0].text)}" + (f" (+{len(worst) - 1})" if len(worst) > 1 else "")
                  ] if worst else []
        total = "not graded" if c.error else f"**{c.total:.1f}**"
        lines.append(f"| {c.rank} | {md(c.path)} | {total} | {' | '.join(cells)} | {used} | {'; '.join(notes)} |")
    lines += similarity_view.markdown(batch).rstrip("\n").split("\n") + _plants(batch)
    lines += ["", "## Candidates"]
    for c in batch.candidates:
        lines += _candidate(c)
    lines += _totals(report)
    return "\n".join(lines) + "\n"


def _score_cell(kata):
    if kata is None:
        return "-"
    note = "untouched" if kata.untouched else ", ".join(md(bug) for bug in kata.bugs[:2]) or \
        (kata.status if kata.status in ("error", "timeout") else "")
    return f"{kata.score:.0f}" + (f" ({note})" if note else "")


def _plants(batch):
    rows = [(c, kata) for c in batch.candidates for kata in c.katas if kata.plants]
    if not rows:
        return []
    lines = ["", "## Kata 10: planted bugs", "", "| candidate | fixed | remaining |", "|---|---|---|"]
    for c, kata in rows:
        plants = kata.plants
        remaining = "cannot tell" if plants["remaining"] is None else ", ".join(plants["remaining"]) or "none"
        lines.append(f"| {md(c.path)} | {len(plants['fixed'])} of {len(plants['planted'])}: "
                     f"{md(', '.join(plants['fixed']) or 'none')} | {md(remaining)} |")
    return lines


def _candidate(c):
    lines = ["", f"### {c.rank}. {md(c.path)}: {'not graded' if c.error else f'{c.total:.1f}/100'}", ""]
    record = c.record or {}
    lines.append(f"Seed {c.seed} · pack {md(record.get('pack', '-'))} · issued {md(c.issued or '-')} · last change "
                 f"{md(c.last_change or '-')} · kata version {md(record.get('kata_version', '-'))}")
    if c.katas:
        lines += ["", "| kata | status | score | checks | bugs named | sha256 |", "|---|---|---:|---:|---|---|"]
        lines += [f"| {k.kata} {k.slug} | {k.status}{' (untouched)' if k.untouched else ''} | {k.score:.1f} | "
                  f"{k.passed} of {k.total} | {md(', '.join(k.bugs)) or '-'} | {k.sha256 or '-'} |"
                  for k in c.katas]
    found = ranked.of_candidate(c)
    if found:
        lines += [""] + [f"- **{concern.label}**: {md(concern.text)}" for concern in found]
    return lines


def _totals(report):
    slugs = {row.kata: row.slug for row in report.rows}
    lines = ["", "## Totals per kata", "", "| kata | " + " | ".join(status.value for status in Status) +
             " | seconds |", "|---|" + "---:|" * (len(Status) + 1)]
    for kata, (counts, seconds) in report.by_kata.items():
        if kata != "-":
            lines.append(f"| {kata} {slugs[kata]} | {' | '.join(str(counts[s.value]) for s in Status)} | "
                         f"{seconds:.1f} |")
    lines += ["", "## Totals per status", "", "| status | checks |", "|---|---:|"]
    return lines + [f"| {status} | {count} |" for status, count in report.by_status.items()]

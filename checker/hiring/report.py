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


def cpu_text(report):
    """The batch's CPU as the kernel counts it: the grader's own and every process it started (the sandboxes)."""
    total = report.cpu_own + report.cpu_children
    return (f"CPU: {total:.1f} s in all (the kernel's count: {report.cpu_own:.1f} s this process, "
            f"{report.cpu_children:.1f} s its workers and sandboxes)")


def _shown(workspace):
    """A workspace by the roster's name for it (the folder the pack was made for), else its path."""
    folder = (workspace.record or {}).get("folder")
    return str(folder) if folder else workspace.path


def grade_text(report, report_path=None):
    """`kata grade`: one line per workspace (and its flags), then the totals."""
    width = max((len(escape.terminal(_shown(w))) for w in report.workspaces), default=0)
    lines = []
    for workspace in report.workspaces:
        cells = []
        if workspace.error:
            cells.append(click.style("error", fg="red") + f": {escape.terminal(workspace.error)}")
        for row in workspace.rows if not workspace.error else []:
            cell = f"{row.kata} " + styled_status(row.status)
            notes = row.bugs + (["review"] if row.review else [])
            cells.append(cell + (f" ({escape.terminal(', '.join(notes))})" if notes else ""))
        lines.append(f"{escape.terminal(_shown(workspace)):<{width}}  " + " · ".join(cells))
        lines += [f"{'':<{width}}  ! {escape.terminal(flag)}" for flag in workspace.flags]
    counts = ", ".join(f"{count} {status}" for status, count in report.by_status.items() if count)
    jobs = f"{report.jobs} job{'s' if report.jobs != 1 else ''}"
    lines += ["", click.style(f"{len(report.workspaces)} workspaces, {len(report.rows)} checks", bold=True)
              + f" in {report.seconds:.1f} s ({jobs}): {counts or 'nothing to grade'}",
              cpu_text(report), isolation_text(report.isolation)]
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
    """The report file a manager reads alone: integrity first (when anything needs review), the rubric, the
    ranking, what each bug name means, kata 10's plants, each candidate, the totals, the file hashes last."""
    report = batch.report
    katas = sorted({kata.kata: kata.slug for c in batch.candidates for kata in c.katas}.items())
    lines = ["# Kata grading report", "",
             f"{len(batch.candidates)} candidates, {len(report.rows)} checks, graded in {report.seconds:.1f} s "
             f"({cpu_text(report)}). Total: each kata's score (the weighted share of its hidden checks passed) "
             "weighted by the team's rubric. Time used: from the pack's issue to the newest kata file, and the "
             "first to last file, on the candidate's own clock.", ""]
    lines += _integrity(batch) + [_weights(batch), "", isolation_text(report.isolation), "", "## Ranking", "",
                                  "| # | candidate | total | " + " | ".join(f"{kata} {slug}" for kata, slug in katas)
                                  + " | time used | flags |", "|---:|---|---:|" + "---:|" * len(katas) + "---|---|"]
    names = {c.path: c.name for c in batch.candidates}
    for c in batch.candidates:
        scores = {kata.kata: kata for kata in c.katas}
        cells = [_score_cell(scores.get(kata)) for kata, _ in katas]
        others, hidden = similarity_view.closest_others(c, names)
        others += [f"{hidden} more"] if hidden else []
        held = [f"**held: tampering**: {md(c.held[0].text)}" + (f" (+{len(c.held) - 1})" if len(c.held) > 1 else "")
                for _ in c.held[:1]]
        notes = held + (["**over time**"] if c.over_time else []) + \
            ([f"similar to {md(', '.join(others))} (kata {', '.join(sorted({p.kata for p in c.similar}))})"]
             if others else [])
        worst = [concern for concern in ranked.of_candidate(c) if concern.severity in (ranked.ESCAPE, ranked.RECORD)]
        notes += [f"**{worst[0].label}**: {md(worst[0].text)}" + (f" (+{len(worst) - 1})" if len(worst) > 1 else "")
                  ] if worst else []
        total = "not graded" if c.error else f"**{c.total:.1f}**"
        lines.append(f"| {c.rank} | {md(c.name)} | {total} | {' | '.join(cells)} | {_time_used(c)} | "
                     f"{'; '.join(notes)} |")
    lines += _explained(batch)
    similar = similarity_view.markdown(batch)
    for c in batch.candidates:  # the roster's names, not where the grader unpacked them
        similar = similar.replace(f"| {md(c.path)} |", f"| {md(c.name)} |")
    lines += similar.rstrip("\n").split("\n") + _plants(batch)
    lines += ["", "## Candidates"]
    for c in batch.candidates:
        lines += _candidate(c)
    lines += _totals(report) + _hashes(batch)
    return "\n".join(lines) + "\n"


def _integrity(batch):
    """The section a report opens with when any candidate has a concern beyond time and similarity."""
    held = [c for c in batch.candidates if c.held]
    others = [(c, found) for c in batch.candidates if not c.held
              for found in [[x for x in ranked.of_candidate(c) if x.severity in (ranked.ESCAPE, ranked.RECORD)]]
              if found]
    if not held and not others:
        return []
    lines = ["## Integrity: needs review before any score", ""]
    if held:
        lines += ["Held for tampering (ranked after every clean candidate, whatever they scored):", ""]
        lines += [f"- **{md(c.name)}** ({c.total:.1f} before review): " + "; ".join(md(x.text) for x in c.held)
                  for c in held]
    if others:
        lines += ["", "To look at (not held):", ""] if held else ["To look at:", ""]
        lines += [f"- {md(c.name)}: " + "; ".join(f"{x.label}: {md(x.text)}" for x in found[:3]) for c, found in others]
    return lines + [""]


def _weights(batch):
    rubric = {}
    for c in batch.candidates:
        for kata in c.katas:
            rubric.setdefault(kata.kata, kata.weight)
    return "Weights: " + ", ".join(f"{kata} ×{weight:g}" for kata, weight in sorted(rubric.items())) + \
        " (the team's rubric, `kata pack --weights`)." if rubric else "Weights: none."


def _time_used(c):
    if c.span_seconds is None:
        return "-"
    used = duration(c.span_seconds) + (f" of {c.minutes} min" if c.minutes else "")
    spread = c.spread
    if spread and len(c.offsets) > 1 and spread[1] - spread[0] >= 60:
        used += f" (files {spread[0] / 60:.0f}–{spread[1] / 60:.0f} min)"
    return used


def _score_cell(kata):
    if kata is None:
        return "-"
    if kata.missing:
        return f"not graded ({kata.missing} not installed on the grader)"
    if kata.plants and kata.plants["remaining"] is not None and not kata.untouched:
        note = f"{len(kata.plants['fixed'])} of {len(kata.plants['planted'])} planted bugs fixed"
    elif kata.slow:
        note = "correct, too slow"
    else:
        note = "untouched" if kata.untouched else ", ".join(md(bug) for bug in kata.bugs[:2]) or \
            (kata.status if kata.status in ("error", "timeout") else "")
    return f"{kata.score:.0f}" + (f" ({note})" if note else "")


def _explained(batch):
    """Each bug id named in the batch with its catalogue line, and what the other notes mean."""
    from checker.engine import catalog, prompts

    named = sorted({(bug, kata.kata) for c in batch.candidates for kata in c.katas for bug in kata.bugs})
    lines = ["", "## What the bug names mean", ""]
    for bug, kata in dict((bug, kata) for bug, kata in named).items():
        means, fix = prompts.means_of(bug, catalog.find(kata).slug), prompts.fix_of(bug)
        said = "; ".join(filter(None, [means, fix and f"the fix: {fix}"])) or "outside the catalogue"
        lines.append(f"- `{md(bug)}` (kata {kata}): {md(said)}")
    if not named:
        lines.append("- No catalogued bug was named in this round.")
    slow = [kata.slow for c in batch.candidates for kata in c.katas if kata.slow]
    capped = [kata.capped for c in batch.candidates for kata in c.katas if kata.capped]
    if slow:
        lines.append("- *correct, too slow*: every check that finished passed, but some did not finish within the "
                     "time limit: credit for those that finished.")
    if capped:
        lines.append(f"- *{md(capped[0])}*: a kata's point missed (kata 08: flash attention that builds the whole "
                     "score table is plain attention), whatever else passed.")
    if any(kata.plants for c in batch.candidates for kata in c.katas):
        lines.append("- *N of M planted bugs fixed*: kata 10 hands out a working file with bugs planted in it; "
                     "each one fixed earns the same share.")
    return lines


def _plants(batch):
    rows = [(c, kata) for c in batch.candidates for kata in c.katas if kata.plants]
    if not rows:
        return []
    lines = ["", "## Kata 10: planted bugs", "", "| candidate | fixed | remaining |", "|---|---|---|"]
    for c, kata in rows:
        plants = kata.plants
        remaining = "cannot tell" if plants["remaining"] is None else ", ".join(plants["remaining"]) or "none"
        lines.append(f"| {md(c.name)} | {len(plants['fixed'])} of {len(plants['planted'])}: "
                     f"{md(', '.join(plants['fixed']) or 'none')} | {md(remaining)} |")
    return lines


def _status(k):
    if k.missing:
        return f"not graded: {k.missing} is not installed on the grader"
    return k.slow or k.status + (" (untouched)" if k.untouched else "") + (f", {k.capped}" if k.capped else "")


def _checks(k):
    if k.plants and k.plants["remaining"] is not None:
        return f"{len(k.plants['fixed'])} of {len(k.plants['planted'])} planted bugs fixed"
    return f"{k.passed} of {k.total}"


def _hashes(batch):
    rows = [(c, k) for c in batch.candidates for k in c.katas if k.sha256]
    if not rows:
        return []
    lines = ["", "## Appendix: file hashes", "", "| candidate | kata | sha256 |", "|---|---|---|"]
    return lines + [f"| {md(c.name)} | {k.kata} | `{k.sha256}` |" for c, k in rows]


def _candidate(c):
    title = f"{md(c.name)}" + (f" ({md(c.path)})" if c.name != c.path else "")
    lines = ["", f"### {c.rank}. {title}: {'not graded' if c.error else f'{c.total:.1f}/100'}", ""]
    record = c.record or {}
    lines.append(f"Seed {c.seed} · pack {md(record.get('pack', '-'))} · issued {md(c.issued or '-')} · last change "
                 f"{md(c.last_change or '-')} · kata version {md(record.get('kata_version', '-'))}")
    if c.katas:
        lines += ["", "| kata | status | score | checks | bugs named |", "|---|---|---:|---:|---|"]
        lines += [f"| {k.kata} {k.slug} | {_status(k)} | {k.score:.1f} | "
                  f"{_checks(k)} | {md(', '.join(k.bugs)) or '-'} |" for k in c.katas]
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

"""Text for people about the learner's progress: `kata list`'s table and `kata review`'s plan.

Like render.py, everything here formats what it is given; nothing here decides anything.
"""

import click

from checker.present import layout
from checker.present.render import duration, styled_status


def list_text(rows, plan=None, notebook=None):
    """`kata list`: one line a kata, each column as wide as its content; a title too long for the terminal
    wraps inside its own column. rows: (kata, title, progress.KataProgress). `plan`: review lines, after.
    `notebook`: kata id -> progress.CellProgress, the `%%kata` cells whose outcome differs from the file's,
    shown in a column of their own (none: no column)."""
    notebook = notebook or {}
    head = ("id", "kata", "", "status", "attempts", "hints", "time to pass") + (("notebook cell",) if notebook else ())
    cells = [(kata.id, kata.slug, title, entry.status, str(entry.attempts), str(entry.hints_used),
              duration(entry.seconds_to_pass)) + ((_cell_text(notebook.get(kata.id)),) if notebook else ())
             for kata, title, entry in rows]
    widths = [max(layout.display_width(row[i]) for row in [head, *cells]) for i in range(len(head))]
    terminal = layout.current()
    if terminal is not None:  # the title takes what the other columns leave
        widths[2] = max(12, min(widths[2], terminal - sum(widths) + widths[2] - 2 * (len(widths) - 1)))
    right = {4, 5}

    def line(row, styled=None):
        parts = [layout.pad(text, widths[i]) if i not in right else f"{text:>{widths[i]}}" for i, text in enumerate(row)]
        if styled:
            parts[3] = styled_status(row[3], widths[3])
        return "  ".join(parts).rstrip()

    lines = [line(head)]
    for row in cells:
        title = layout.wrap(row[2], widths[2], "", narrowest=1) if layout.display_width(row[2]) > widths[2] else [row[2]]
        lines.append(layout.Kept(line((*row[:2], title[0], *row[3:]), styled=True)))
        lines += [layout.Kept(line(("", "", more) + ("",) * (len(head) - 3)).rstrip()) for more in title[1:]]
    if notebook:
        lines += ["", "A notebook cell's check is its own: the status is your kata file's (`kata check ID`)."]
    return "\n".join(lines + list(plan or []))


def _cell_text(cell):
    """A cell's latest outcome and when: "failed 14:03" (today) or "failed 3 Dec"."""
    if cell is None:
        return ""
    from datetime import datetime

    at = datetime.fromtimestamp(cell.at)
    return f"{cell.status} {at:%H:%M}" if at.date() == datetime.now().date() else f"{cell.status} {at:%d %b}"


def plan_lines(plan, questions=0, short=False):
    """A review plan (review.Plan): today's katas and why, then the days after. `short`: one line for
    `kata list`."""
    if not plan.days:
        return [] if short else ["Nothing to review yet: a kata joins the review once it passes."]
    today = plan.now
    later = [(day, p) for day, proposals in plan.days if day != plan.today for p in proposals]
    upcoming = ", ".join(f"{p.kata.id} on {day:%a %d %b}" for day, p in later[:4]) + (f" and {len(later) - 4} more" if len(later) > 4 else "")
    if short:
        head = ("Review today: " + ", ".join(f"{p.kata} ({'; '.join(p.reasons)})" for p in today)
                if today else "Review: nothing due today")
        return layout.fit(["", head + (f"; then {upcoming}" if upcoming else "") + ". `kata review` starts it."])
    lines = [click.style(f"Review for {plan.today:%a %d %b}", bold=True)
             + (f", {(plan.until - plan.today).days + 1} days to {plan.until:%a %d %b}" if plan.until else "")]
    if today:
        lines += [f"  {p.kata}: {'; '.join(p.reasons)}" for p in today]
        if questions:
            lines.append(f"  and {questions} quiz question{'s' if questions != 1 else ''}, the ones you missed first")
    else:
        lines.append("  Nothing due today.")
    if later:
        lines += ["", "Then:"] + [f"  {day:%a %d %b}  {p.kata}: {'; '.join(p.reasons)}" for day, p in later]
    return layout.fit(lines)

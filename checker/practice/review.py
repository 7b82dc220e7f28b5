"""Spaced, interleaved review: which passed katas to redo today, and which quiz questions to ask again.

The scheduler is a few lines on the learner's own history in `.kata/progress.json`: a kata is due
`interval_days` after its last pass; each clean review (passed at the first check, no bug named)
doubles the interval, any other resets it to one day. Among the katas due, the one that needs it most
comes first: the longest overdue, then the one that took the most attempts or hit the same bug again.
`until` (the interview's date) spreads every passed kata over the days left, most urgent first.
"""

import math
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

DAY = 86400.0
FIRST_INTERVAL = 1.0  # days from a kata's first pass to its first review
GROWTH = 2.0  # a clean review multiplies the interval by this
QUESTIONS = 3


@dataclass
class Proposal:
    kata: object  # catalog.Kata
    due: date
    reasons: list = field(default_factory=list)  # why it is worth redoing, in words
    need: float = 0.0  # higher: redo it sooner


@dataclass
class Plan:
    today: date
    days: list  # [(date, [Proposal])], from today, days with nothing left out
    until: date | None = None

    @property
    def now(self):
        """Today's katas."""
        return next((proposals for day, proposals in self.days if day == self.today), [])


def _day(timestamp):
    return datetime.fromtimestamp(timestamp).date()


def passed_at(entry):
    """When the kata last passed (an old progress file has only its first pass), or None."""
    if entry.last_passed is not None:
        return entry.last_passed
    return None if entry.seconds_to_pass is None else entry.first_seen + entry.seconds_to_pass


def proposal(kata, entry, today):
    """A passed kata as a proposal: when it is due and why it is worth redoing; None if it never passed."""
    passed = passed_at(entry)
    if passed is None:
        return None
    interval = entry.interval_days or FIRST_INTERVAL
    due = _day(entry.due) if entry.due is not None else _day(passed) + timedelta(days=math.ceil(interval))
    ago = (today - _day(passed)).days
    repeated = sorted(bug for bug, hits in entry.bug_hits.items() if hits > 1)
    reasons = [f"passed {ago} day{'s' if ago != 1 else ''} ago" if ago else "passed today"]
    if entry.attempts > 2:
        reasons.append(f"took {entry.attempts} attempts")
    if repeated:
        reasons.append(f"hit {', '.join(repeated)} more than once")
    need = (today - due).days + 0.5 * max(0, entry.attempts - 1) + len(repeated)
    return Proposal(kata, due, reasons, need)


def plan(katas, record, today=None, until=None):
    """Today's set and the days after: without `until`, one kata a day among those due; with it, every
    passed kata reviewed by then, spread evenly over the days left."""
    today = today or date.today()
    pool = [p for p in (proposal(kata, record.of(kata.id), today) for kata in katas) if p is not None]
    pool.sort(key=lambda p: (max(p.due, today), -p.need, p.kata.id))
    if until is not None and until >= today:
        days_left = (until - today).days + 1
        per_day = max(1, math.ceil(len(pool) / days_left))
        days = [(today + timedelta(days=i), pool[i * per_day:(i + 1) * per_day]) for i in range(days_left)]
    else:
        days, used = [], {}
        for p in pool:  # one kata a day: a later one waits for the next free day
            day = max(p.due, today)
            while day in used:
                day += timedelta(days=1)
            used[day] = p
        days = [(day, [used[day]]) for day in sorted(used)]
    return Plan(today, [(day, proposals) for day, proposals in days if proposals], until)


def missed_questions(record, own=(), seed=0, count=QUESTIONS):
    """The quiz questions to ask again: the most often missed first, and those of other katas than
    today's (`own`: its question ids) before its own, so the day's practice is interleaved."""
    missed = [(qid, asked, wrong) for qid, (asked, wrong) in record.quiz.items() if wrong]
    random.Random(seed).shuffle(missed)
    missed.sort(key=lambda item: (item[0] in own, -item[2] / item[1], -item[2]))
    return [qid for qid, _, _ in missed][:count]


def record_review(entry, clean, now):
    """After a review: a clean pass grows the interval, anything else starts it again from one day."""
    entry.reviews += 1
    entry.interval_days = (entry.interval_days or FIRST_INTERVAL) * GROWTH if clean else FIRST_INTERVAL
    entry.due = now + entry.interval_days * DAY
    if clean:
        entry.last_passed = now

"""Spaced, interleaved review: which passed katas to redo today, and which quiz questions to ask again.

The scheduler is a few lines on the learner's whole history in `.kata/progress.json`: a kata is due
`interval_days` after its last pass; each clean review (passed at the first check, no bug named)
doubles the interval, any other resets it to one day. A hard history shortens the wait: many attempts,
a bug hit more than once and quiz questions missed on the kata divide the interval (never below a day).
A kata that failed MANY_ATTEMPTS times and never passed is due at once. Among the katas due, the one
that needs it most comes first: the longest overdue, then the heaviest history. Each proposal says why
it is there. `until` (the interview's date) spreads every proposed kata over the days left.
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


MANY_ATTEMPTS = 3  # attempts from which a kata's history is a reason to redo it (and one never passed is due)


def proposal(kata, entry, today, missed=0):
    """A kata as a proposal: when it is due and why it is worth redoing, from its whole history (`missed`:
    how many of its quiz questions were missed); None if it never passed and failed fewer than MANY_ATTEMPTS
    times (it is still being learned: `kata next` has it)."""
    repeated = sorted(bug for bug, hits in entry.bug_hits.items() if hits > 1)
    history = _history(entry, repeated, missed)
    weight = 1 + 0.25 * max(0, entry.attempts - MANY_ATTEMPTS + 1) + 0.5 * len(repeated) + 0.25 * missed
    passed = passed_at(entry)
    if passed is None:
        if entry.attempts < MANY_ATTEMPTS:
            return None
        reasons = [f"failed {entry.attempts} times and never passed"] + history
        return Proposal(kata, today, reasons, 10 + weight)
    interval = entry.interval_days or FIRST_INTERVAL
    start = _day(entry.due - interval * DAY) if entry.due is not None else _day(passed)  # of this interval
    waited = _day(entry.due) if entry.due is not None else start + timedelta(days=math.ceil(interval))
    due = min(waited, start + timedelta(days=max(1, math.floor(interval / weight))))
    ago = (today - _day(passed)).days
    reasons = [f"passed {ago} day{'s' if ago != 1 else ''} ago" if ago else "passed today"]
    if entry.attempts >= MANY_ATTEMPTS:
        reasons.append(f"took {entry.attempts} attempts")
    reasons += history
    if due < waited:
        reasons.append(f"due {(waited - due).days} day{'s' if (waited - due).days != 1 else ''} sooner for it")
    return Proposal(kata, due, reasons, (today - due).days + weight)


def _history(entry, repeated, missed):
    """The reasons a kata's history gives beyond its attempts: bugs hit again, questions missed."""
    reasons = [f"hit {', '.join(repeated)} more than once"] if repeated else []
    if missed:
        reasons.append(f"missed {missed} of its quiz question{'s' if missed != 1 else ''}")
    return reasons


def plan(katas, record, today=None, until=None, missed=None):
    """Today's set and the days after: without `until`, one kata a day among those due; with it, every
    proposed kata reviewed by then, spread evenly over the days left. `missed`: kata id -> how many of its
    quiz questions were missed (missed_by_kata)."""
    today = today or date.today()
    pool = [p for p in (proposal(kata, record.of(kata.id), today, (missed or {}).get(kata.id, 0))
                        for kata in katas) if p is not None]
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


def missed_by_kata(record, kata_of):
    """kata id -> how many of its quiz questions were missed (`kata_of`: question id -> kata id)."""
    counts = {}
    for qid, (_, wrong) in record.quiz.items():
        if wrong and qid in kata_of:
            counts[kata_of[qid]] = counts.get(kata_of[qid], 0) + 1
    return counts


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

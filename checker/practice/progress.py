"""The learner's progress, kept in the workspace's `.kata/progress.json`.

Writes are atomic (a temporary file, then a rename), so an interrupted write loses nothing.
A corrupted or foreign file gives a one-line warning and is rebuilt, never a crash.
"""

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

FORMAT_VERSION = 5  # 2 bugs_seen, 3 last_checked, 4 review fields and quiz, 5 cells; older files read as they are
_READABLE_VERSIONS = (1, 2, 3, 4, 5)


@dataclass
class KataProgress:
    status: str = "unchecked"
    attempts: int = 0
    hints_used: int = 0
    first_seen: float | None = None  # time of the first check
    seconds_to_pass: float | None = None  # from the first check to the first pass
    bugs_seen: list = field(default_factory=list)  # bug ids the checks named, in first-seen order
    last_checked: str | None = None  # a digest of the file the last attempt checked
    seed: int | None = None  # the seed the learner's stub was drawn with (kata reset 10 --seed); None: default
    bug_hits: dict = field(default_factory=dict)  # bug id -> how many checks named it
    last_passed: float | None = None  # time of the latest pass (a check, or a review)
    interval_days: float | None = None  # kata review: days from the last clean pass to the next review
    due: float | None = None  # kata review: when it is due again (None: from last_passed and interval_days)
    reviews: int = 0  # reviews done

    @property
    def ever_passed(self):
        return self.seconds_to_pass is not None


@dataclass
class CellProgress:
    """The latest `%%kata` cell checked as a kata: its own record, never the kata file's (a cell is not the file)."""
    status: str
    at: float  # when it was checked
    bugs: list = field(default_factory=list)  # the bugs that check named
    checks: int = 0  # cells checked as this kata in all


_CELL_TYPES = {"status": (str,), "at": (int, float), "bugs": (list,), "checks": (int,)}

_TYPES = {"status": (str,), "attempts": (int,), "hints_used": (int,), "first_seen": (int, float, type(None)),
          "seconds_to_pass": (int, float, type(None)), "bugs_seen": (list,), "last_checked": (str, type(None)),
          "seed": (int, type(None)), "bug_hits": (dict,), "last_passed": (int, float, type(None)),
          "interval_days": (int, float, type(None)), "due": (int, float, type(None)), "reviews": (int,)}


@dataclass
class Progress:
    path: Path
    katas: dict = field(default_factory=dict)  # id -> KataProgress
    warning: str | None = None  # set when the file on disk could not be used
    quiz: dict = field(default_factory=dict)  # question id -> [times asked, times missed] (kata review asks the missed)
    interview: str | None = None  # `kata review --until DATE`: the day the review is spread up to (ISO date)
    cells: dict = field(default_factory=dict)  # id -> CellProgress: the notebook's checks, kept apart from the file's
    defence: dict = field(default_factory=dict)  # kata id -> the latest `kata defend`: right, asked, missed, seed

    def of(self, kata_id):
        return self.katas.setdefault(kata_id, KataProgress())

    def record_check(self, kata_id, status, bugs=(), now=None, digest=None):
        """Record a check. An attempt is a check of a started file with content not checked before:
        the stub (not started) and a file checked again unchanged (`--all`, `--json`, a re-run) are not."""
        now = time.time() if now is None else now
        entry = self.of(kata_id)
        entry.status = status
        if status == "not-started":
            return
        attempt = digest is None or digest != entry.last_checked
        if attempt:
            entry.attempts += 1
            for bug in dict.fromkeys(bugs):  # a re-check of the same file hits nothing again
                entry.bug_hits[bug] = entry.bug_hits.get(bug, 0) + 1
        entry.last_checked = digest if digest is not None else entry.last_checked
        entry.bugs_seen += [bug for bug in dict.fromkeys(bugs) if bug not in entry.bugs_seen]
        if entry.first_seen is None:
            entry.first_seen = now
        if status == "passed" and entry.seconds_to_pass is None:
            entry.seconds_to_pass = round(now - entry.first_seen, 1)
        if status == "passed" and attempt:
            entry.last_passed = now

    def record_cell(self, kata_id, status, bugs=(), now=None):
        """Record a `%%kata` cell's check as the cell's own entry: what the learner's file earned is untouched."""
        checks = self.cells[kata_id].checks if kata_id in self.cells else 0
        self.cells[kata_id] = CellProgress(status, time.time() if now is None else now, list(dict.fromkeys(bugs)),
                                           checks + 1)

    def cell_differs(self, kata_id):
        """The kata's latest cell, when its outcome is not the file's status (what `kata list` shows), or None."""
        cell = self.cells.get(kata_id)
        file_status = self.katas[kata_id].status if kata_id in self.katas else "unchecked"
        return cell if cell is not None and cell.status != file_status else None

    def record_answers(self, asked):
        """Keep, per quiz question, how often it was asked and missed (quiz.Asked, answered ones only)."""
        for question in asked:
            if question.answered:
                counts = self.quiz.setdefault(question.question.id, [0, 0])
                counts[0] += 1
                counts[1] += not question.correct

    def record_defence(self, kata_id, defence, seed):
        """Keep the latest defence of a kata: its score, how many it missed, and the seed that asks them again."""
        done = [q for q in defence.questions if q.asked.answered]
        right = sum(q.asked.correct for q in done)
        self.defence[kata_id] = {"right": right, "asked": len(done), "missed": len(done) - right, "seed": int(seed),
                                 "count": len(defence.questions)}

    def passes_now(self, kata_id, digest=None):
        """Its last check passed, on the file as it is now (`digest`; a reset or an edit since undoes a pass)."""
        entry = self.of(kata_id)
        return entry.status == "passed" and (digest is None or entry.last_checked in (None, digest))

    def unpassed(self, katas, digests=None):
        """The katas that do not pass now, in order; `digests`: kata id -> digest of its file as it is."""
        return [kata for kata in katas if not self.passes_now(kata.id, (digests or {}).get(kata.id))]

    def first_unpassed(self, katas, digests=None):
        """The first of `katas` that does not pass now, or None."""
        return next(iter(self.unpassed(katas, digests)), None)

    def save(self):
        data = {"format_version": FORMAT_VERSION, "katas": {k: asdict(v) for k, v in sorted(self.katas.items())},
                "quiz": dict(sorted(self.quiz.items())), "interview": self.interview,
                "cells": {k: asdict(v) for k, v in sorted(self.cells.items())},
                **({"defence": dict(sorted(self.defence.items()))} if self.defence else {})}
        atomic_write(self.path, json.dumps(data, indent=2))


def atomic_write(path, text):
    """Write `text` to `path` through a temporary file and a rename: readers see the old or the new."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=path.suffix)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def load(workspace):
    """The workspace's progress; an unreadable file is reported in `warning` and started afresh."""
    path = Path(workspace) / ".kata" / "progress.json"
    if not path.exists():
        return Progress(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format_version") not in _READABLE_VERSIONS:
            raise ValueError(f"format_version {data.get('format_version')!r}")
        katas = {str(k): _entry(v) for k, v in data["katas"].items()}
        quiz = {str(k): [int(n) for n in v] for k, v in data.get("quiz", {}).items()}
        if any(len(counts) != 2 for counts in quiz.values()):
            raise ValueError("quiz: expected [asked, missed] for each question")
        interview = data.get("interview")
        if interview is not None and not isinstance(interview, str):
            raise ValueError(f"interview = {interview!r}")
        cells = {str(k): _cell(v) for k, v in data.get("cells", {}).items()}
        defence = _defence(data.get("defence", {}))
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        return Progress(path, warning=f"{path} could not be read ({error}); starting a fresh record")
    return Progress(path, katas, quiz=quiz, interview=interview, cells=cells, defence=defence)


def _cell(data):
    """One cell's record, its fields checked as _entry checks a kata's."""
    if set(data) != set(_CELL_TYPES):
        raise ValueError(f"a cell's record holds {sorted(_CELL_TYPES)}, found {sorted(data)}")
    for name, value in data.items():
        if not isinstance(value, _CELL_TYPES[name]) or isinstance(value, bool):
            raise ValueError(f"cells: {name} = {value!r}")
    if not all(isinstance(bug, str) for bug in data["bugs"]):
        raise ValueError(f"cells: bugs = {data['bugs']!r}")
    return CellProgress(**data)


def _defence(data):
    """`kata defend`'s scores, each field a whole number, so a foreign file fails here."""
    keys = ("right", "asked", "missed", "seed", "count")
    found = {}
    for kata_id, entry in data.items():
        if not isinstance(entry, dict) or set(entry) != set(keys) or not all(type(entry[k]) is int for k in keys):
            raise ValueError(f"defence[{kata_id!r}] = {entry!r}")
        found[str(kata_id)] = dict(entry)
    return found


def _entry(data):
    """One kata's record, its fields checked, so a foreign file fails here and not in a later `+= 1`."""
    known = {f.name for f in fields(KataProgress)}
    if set(data) - known:
        raise ValueError(f"unknown fields {sorted(set(data) - known)}")
    for name, value in data.items():
        if not isinstance(value, _TYPES[name]) or isinstance(value, bool):
            raise ValueError(f"{name} = {value!r}")
    if not all(isinstance(bug, str) for bug in data.get("bugs_seen", [])):
        raise ValueError(f"bugs_seen = {data['bugs_seen']!r}")
    if not all(isinstance(bug, str) and type(n) is int for bug, n in data.get("bug_hits", {}).items()):
        raise ValueError(f"bug_hits = {data['bug_hits']!r}")
    return KataProgress(**data)

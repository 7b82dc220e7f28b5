"""What a hiring team decides from: each candidate's scores, time and flags, ranked.

`assess(report)` turns a graded batch (grade.GradeReport) into a `Batch` of `Candidate`s. A kata's score is
partial credit from its hidden tests: each test is worth its `@weight(n)` mark (testkit.weight; 1 without
one), a test that never ran (the code timed out or died first) earns nothing, and a file failing a test
marked `@caps(n)` (kata 08's memory) for the bug it names scores at most n (a value mistake in it scores as one).
A check that any answer of the right shape passes (form_checks.yaml) earns nothing unless a value check passed
too; a file that ran out of time is "correct, too slow" when nothing failed, scored on what finished. Kata 10 (a test that leaves `{"planted",
"remaining"}` details) scores the share of planted bugs fixed while any remains, the same for each bug.
A candidate's total is the mean of the kata scores weighted by the team's rubric (`kata pack --weights`,
kept in the roster). Like every result here it is data: rendering (text, Markdown, CSV, JSON, HTML) lives
in report.py, exports.py and review_page.py.
"""

import datetime
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from checker.engine import catalog

OUT_OF = 100
PLANT_TEST = "planted_bugs_fixed"  # the kata 10 test whose details say which planted bugs remain


class RubricError(ValueError):
    """A --weights value that is not a rubric (the message is one line for the user)."""


@dataclass
class KataScore:
    kata: str
    slug: str
    status: str
    score: float  # 0..OUT_OF: the weighted share of its hidden tests passed
    passed: int  # checks passed
    total: int  # checks the kata has (those that never ran count as not passed)
    bugs: list
    weight: float  # the kata's weight in the candidate's total (the team's rubric)
    sha256: str = ""
    review: list = field(default_factory=list)
    plants: dict | None = None  # kata 10: {"planted", "fixed", "remaining"} (remaining None: cannot tell)
    modified: str | None = None  # the file's modification time (ISO, UTC): the candidate's clock, not proof
    check: dict = field(default_factory=dict, repr=False)  # the check object as graded (tests, messages, pictures)
    untouched: bool = False  # the file is the stub the pack issued, byte for byte
    slow: str = ""  # "correct, too slow for the limit: 3 of 14 checks did not finish" ("": not that)
    capped: str = ""  # why a cap applied ("": none did)
    missing: str = ""  # what the grader lacked to run it ("torch"): not graded, out of the total


@dataclass
class Candidate:
    path: str
    seed: int
    katas: list  # KataScore, in kata order
    total: float  # 0..OUT_OF
    record: dict | None  # the roster entry (None: unrostered)
    issued: str | None  # when `kata pack` made it (ISO, UTC)
    last_change: str | None  # the newest modification time of its kata files (ISO, UTC)
    span_seconds: float | None  # last_change - issued
    minutes: int | None  # the time the pack gave
    over_time: bool
    flags: list = field(default_factory=list)  # integrity flags, as grading found them
    error: str = ""
    rank: int = 0
    similar: list = field(default_factory=list)  # similarity.Pair involving this candidate
    files: dict = field(default_factory=dict, repr=False)  # kata id -> the bytes graded (None: refused)
    held: list = field(default_factory=list)  # its tampering concerns (concerns.Concern): ranked after the clean
    offsets: dict = field(default_factory=dict)  # kata id -> its file's modification, seconds after the issue

    @property
    def spread(self):
        """(first, last) file's modification, in seconds after the pack was issued; None without times."""
        return (min(self.offsets.values()), max(self.offsets.values())) if self.offsets else None

    @property
    def name(self):
        """The candidate the pack was made for (the roster's folder name), else the folder graded."""
        issued = (self.record or {}).get("folder")
        return Path(str(issued)).name if issued else self.path

    @property
    def katas_passed(self):
        return sum(kata.status == "passed" for kata in self.katas)

    @property
    def bugs(self):
        named = [bug for kata in self.katas for bug in kata.bugs]
        remaining = [bug for kata in self.katas if kata.plants and not kata.untouched
                     for bug in kata.plants["remaining"] or []]
        return list(dict.fromkeys(named + remaining))  # kata 10's planted bugs left in are bugs too

    @property
    def summary(self):
        """"3/3 katas · 87/100 · bugs: mask-top-left"."""
        if self.error:
            return f"not graded: {self.error}"
        parts = [f"{self.katas_passed}/{len(self.katas)} katas", f"{self.total:.0f}/{OUT_OF}"]
        missing = {kata.kata: kata.missing for kata in self.katas if kata.missing}
        if missing:
            parts.append(f"kata {', '.join(missing)} not graded: {', '.join(sorted(set(missing.values())))} is not "
                         "installed on the grader")
        parts.append("bugs: " + (", ".join(self.bugs) if self.bugs else "none named"))
        return " · ".join(parts)


@dataclass
class Batch:
    candidates: list  # Candidate, ranked (best first)
    pairs: list  # similarity.Pair, most similar first (with the reference solution too)
    report: object  # the grade.GradeReport it was made from
    threshold: float = 0.0  # the similarity at or above which a pair is flagged
    closest: dict = field(default_factory=dict)  # kata id -> similarity.Pair, its closest pairs, flagged or not


def assess(report, similarity=True):
    """The batch's candidates, scored, timed, ranked, with the similar pairs among them."""
    candidates = [_candidate(workspace) for workspace in report.workspaces]
    pairs, threshold, closest = [], 0.0, {}
    if similarity:
        from checker.hiring import similarity as similar

        graded = [c for c in candidates if not c.error]
        found = similar.compare({c.path: c.files for c in graded}, {c.path: c.seed for c in graded})
        pairs, threshold, closest = found.pairs, similar.THRESHOLD, found.closest
        for candidate in graded:
            candidate.similar = [pair for pair in pairs if pair.holds(candidate.path)]
            candidate.flags += found.notes.get(candidate.path, [])  # a file similarity set aside, in part or whole
    from checker.hiring import concerns

    for candidate in candidates:  # integrity before score: a tampering concern ranks after every clean one
        candidate.held = [c for c in concerns.of_candidate(candidate) if c.severity == concerns.TAMPERING]
    ranked = sorted(candidates, key=lambda c: (bool(c.error), bool(c.held), -round(c.total, 6), -c.katas_passed,
                                               c.path))
    for place, candidate in enumerate(ranked):
        earlier = ranked[place - 1] if place else None
        same = earlier and not candidate.error and (bool(earlier.held), round(earlier.total, 6),
                                                    earlier.katas_passed) == \
            (bool(candidate.held), round(candidate.total, 6), candidate.katas_passed)
        candidate.rank = earlier.rank if same else place + 1
    return Batch(ranked, pairs, report, threshold, closest)


def _candidate(workspace):
    record = workspace.record or {}
    rubric = record.get("weights") or {}
    stubs = record.get("stubs") or {}
    katas = [kata_score(check, workspace.seed, rubric.get(check["kata"], 1), workspace.mtimes.get(check["kata"]),
                        untouched=bool(check.get("sha256"))
                        and check["sha256"] == stubs.get(f"katas/{catalog.find(check['kata']).filename}"))
             for check in workspace.checks] if not workspace.error else []
    counted = [kata for kata in katas if not kata.missing]  # the grader's install is never the candidate's score
    weights = sum(kata.weight for kata in counted)
    total = sum(kata.score * kata.weight for kata in counted) / weights if weights else 0.0
    issued = record.get("made")
    newest = max(workspace.mtimes.values(), default=None)
    known = newest is not None and _iso(newest) != UNKNOWN  # a time out of range is flagged, never a span
    span = newest - _timestamp(issued) if known and issued else None
    minutes = record.get("minutes")
    offsets = {kata_id: mtime - _timestamp(issued) for kata_id, mtime in workspace.mtimes.items()
               if issued and _iso(mtime) != UNKNOWN}
    return Candidate(workspace.path, workspace.seed, katas, total, workspace.record, issued,
                     _iso(newest) if newest is not None else None, span, minutes,
                     bool(minutes and span is not None and span > minutes * 60), list(workspace.flags),
                     workspace.error, files=workspace.files, offsets=offsets)


def kata_score(check, seed, weight=1, mtime=None, untouched=False):
    """One graded check's score: the weighted share of the kata's hidden tests it passed, at most the cap of
    any `@caps` test it did not pass; kata 10, the share of planted bugs fixed. 0 for a file `untouched` since
    the pack (its SHA-256 is the stub's in the roster: kata 10's planted stub passes a few checks)."""
    kata = catalog.find(check["kata"])
    weights, caps, form = test_weights(kata), test_caps(kata), form_checks(kata)
    tests = {test["name"]: test for test in check["tests"]}
    outcomes = {name: test["outcome"] for name, test in tests.items()}
    plants = _plants(kata, check, seed)
    passed = sum(outcomes.get(name) == "passed" for name in weights)
    # a check any right-shaped answer passes counts only beside a value check that passed
    valued = any(outcomes.get(name) == "passed" for name in weights if name not in form)
    earned = {name: w for name, w in weights.items() if outcomes.get(name) == "passed" and (valued or name not in form)}
    slow, capped = "", ""
    if untouched or not weights:
        score = 0.0
    elif plants and plants["remaining"]:
        # the contract's tests fail while any planted bug remains: they would make the last fix worth more
        # than the others together; each planted bug fixed earns the same
        score = OUT_OF * len(plants["fixed"]) / max(len(plants["planted"]), 1)
    else:
        score = OUT_OF * sum(earned.values()) / sum(weights.values())
    for name, (cap, bug) in caps.items():  # the cap is for the bug it names, never for a value mistake in it
        if outcomes.get(name) == "failed" and tests[name].get("bug") == bug and score > cap:
            score, capped = cap, f"at most {cap:g}: {bug}"
    unfinished = [name for name in weights if outcomes.get(name) in (None, "timeout")]
    if check["status"] == "timeout" and not any(t["outcome"] == "failed" for t in check["tests"]):
        slow = f"correct, too slow for the limit: {len(unfinished)} of {len(weights)} checks did not finish in time"
    return KataScore(kata.id, kata.slug, check["status"], round(score, 1), passed, len(weights), check["bugs"],
                     weight, check.get("sha256") or "", check.get("review", []),
                     plants, _iso(mtime) if mtime is not None else None, check, untouched, slow, capped,
                     check.get("grader_missing") or "")


FORM_NAMES = re.compile(r"shape|dtype|returns|unchanged")


@functools.lru_cache(maxsize=None)
def _form_table():
    import yaml
    from pathlib import Path as _Path

    return yaml.safe_load(_Path(__file__).with_name("form_checks.yaml").read_text(encoding="utf-8")) or {}


def form_checks(kata):
    """The names of the kata's checks any answer of the right shape passes (an all-zeros one does)."""
    return {name for name in test_weights(kata) if FORM_NAMES.search(name)} | set(_form_table().get(kata.id, []))


def test_weights(kata):
    """{test name: weight} of the kata's hidden tests, in the order they run: each test's `@weight(n)`, else
    the module's WEIGHTS entry, else 1."""
    from checker.engine.runner import hidden_tests

    hidden = kata.hidden()
    table = getattr(hidden, "WEIGHTS", {})
    weights = {}
    for test in hidden_tests(hidden):
        name = test.__name__.removeprefix("test_")
        weights[name] = float(getattr(test, "weight", table.get(name, 1)))
    return weights


def test_caps(kata):
    """{test name: (the most a file failing it with the bug it names scores, that bug)} of the kata's `@caps`
    tests."""
    from checker.engine.runner import hidden_tests

    return {test.__name__.removeprefix("test_"): (float(test.cap), getattr(test, "bug", None))
            for test in hidden_tests(kata.hidden()) if hasattr(test, "cap")}


def _plants(kata, check, seed):
    """Kata 10 (a kata whose folder has plants.py): which planted bugs the file fixed, else None."""
    plants = kata.part("plants")
    if plants is None:
        return None
    from checker.engine.runner import DEFAULT_SEED

    planted = list(plants.planted(seed, DEFAULT_SEED))
    details = check.get("details") or {}
    outcome = next((test["outcome"] for test in check["tests"] if test["name"] == PLANT_TEST), None)
    if "remaining" in details:
        remaining = details["remaining"]
    else:
        remaining = [] if outcome == "passed" else None
    fixed = [bug for bug in planted if remaining is not None and bug not in remaining]
    return {"planted": planted, "fixed": fixed, "remaining": remaining}


def _timestamp(iso):
    return datetime.datetime.fromisoformat(iso).timestamp()


UNKNOWN = "unknown"  # a modification time no date can show (a tmpfs file can claim the year 33658)


def _iso(seconds):
    try:
        return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(timespec="seconds")
    except (ValueError, OverflowError, OSError):
        return UNKNOWN


# --- the team's rubric ------------------------------------------------------------------------------

def parse_rubric(text):
    """`kata pack --weights`: "03=2,05=3", or a YAML or JSON file mapping kata ids (or slugs) to weights."""
    path = Path(text)
    if path.is_file():
        import yaml

        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            raise RubricError(f"{path} is not a rubric: {error}") from None
        if not isinstance(data, dict):
            raise RubricError(f"{path} is not a rubric: expected a mapping of kata ids to weights")
        items = list(data.items())
    else:
        items = [part.partition("=")[::2] for part in text.split(",") if part.strip()]
    rubric = {}
    for key, value in items:
        try:
            kata, weight = catalog.find(str(key).strip()), float(value)
        except (ValueError, TypeError):
            raise RubricError(f"--weights takes kata=weight pairs like 03=2,05=3, not {text!r}") from None
        except catalog.UnknownKata as error:
            raise RubricError(str(error)) from None
        if weight < 0 or weight != weight:
            raise RubricError(f"a kata's weight is a number of 0 or more, not {value!r}")
        rubric[kata.id] = weight
    if not rubric:
        raise RubricError(f"--weights takes kata=weight pairs like 03=2,05=3, not {text!r}")
    return rubric

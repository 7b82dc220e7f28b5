"""What a check produces: plain data that the CLI renders as text or JSON. Rendering decides nothing."""

from dataclasses import dataclass, field
from enum import Enum


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"  # ran, wrong
    NOT_STARTED = "not-started"  # the stub's NotImplementedError
    ERROR = "error"  # not an answer: could not load, a missing name, sys.exit (an exception on an input is FAILED)
    TIMEOUT = "timeout"


@dataclass
class TestOutcome:
    name: str
    outcome: Status  # of this test alone
    bug: str | None = None  # the catalogued bug this failure points to
    message: str = ""
    exact: bool = False  # the output equals a known buggy variant's, not just a symptom
    where: list = field(default_factory=list)  # learner file lines: [line, function, code]
    picture: object = None  # a testkit.WeightGrid to draw for people (never in the JSON)
    details: dict | None = None  # data for hints and graders (kata 10's remaining plants), never in the JSON
    calls: list = field(default_factory=list, repr=False)  # a failure's calls (proxy.Call), for its repro
    raised: bool = False  # failed because the learner's code raised on an in-contract input (shown as a crash)

    def to_json(self):
        return {"name": self.name, "outcome": Status(self.outcome).value, "bug": self.bug, "message": self.message}


@dataclass
class Result:
    kata: str  # "01"
    slug: str
    file: str
    status: Status
    tests: list[TestOutcome]
    seconds: float
    output: str = ""  # what the learner's code printed
    unreachable: list = field(default_factory=list)  # stubs.Unreachable: code written below the stub's raise
    frontend: str = "numpy"  # "torch" for a file written in PyTorch (checker/sandbox/torch_bridge.py)

    @property
    def bugs(self):
        """Every bug named, most specific first (an exact match beats a symptom), no duplicates."""
        named = sorted((not t.exact, i, t.bug) for i, t in enumerate(self.tests) if t.bug)
        return list(dict.fromkeys(bug for _, _, bug in named))

    @property
    def details(self):
        """What the failed tests left for hints and graders, merged."""
        return {key: value for t in self.tests if t.details for key, value in t.details.items()}

    @property
    def failures(self):
        return [t for t in self.tests if t.outcome != Status.PASSED]

    @property
    def ranked_failures(self):
        """The failures, most informative first: a named bug with a picture, then a named bug (an exact
        match first), then the rest, each group in the order the tests ran."""
        def information(pair):
            index, test = pair
            return test.bug is None, test.picture is None, not test.exact, index

        return [test for _, test in sorted(enumerate(self.failures), key=information)]

    def to_json(self):
        return {"kata": self.kata, "file": self.file, "status": self.status.value, "bugs": self.bugs,
                "tests": [t.to_json() for t in self.tests], "seconds": round(self.seconds, 3)}


def overall_status(outcomes):
    """The kata's status from its tests' outcomes."""
    kinds = {Status(t.outcome) for t in outcomes}
    if Status.TIMEOUT in kinds:
        return Status.TIMEOUT
    if kinds == {Status.PASSED}:
        return Status.PASSED
    if kinds == {Status.NOT_STARTED}:
        return Status.NOT_STARTED
    if Status.FAILED in kinds or any(t.bug for t in outcomes):
        return Status.FAILED
    if Status.ERROR in kinds:
        return Status.ERROR
    return Status.FAILED  # some parts pass, others are still the stub

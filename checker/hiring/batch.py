"""A graded batch as data: a row per candidate and kata, a workspace's checks, the batch and its totals."""

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from checker.engine import catalog
from checker.engine.results import Status


@dataclass
class GradeRow:
    """One candidate and kata, as the report shows it."""

    workspace: str
    seed: int
    kata: str
    slug: str
    status: str
    bugs: list
    seconds: float
    sha256: str = ""
    review: list = field(default_factory=list)  # reasons for a human to read the file (never a failure)


@dataclass
class WorkspaceGrade:
    path: str
    seed: int
    checks: list  # check objects as in SPEC.md (plus sha256, review), in kata order
    flags: list = field(default_factory=list)  # for a human: unrostered, a disagreeing manifest, a refused file
    error: str = ""  # the workspace could not be graded at all: one error row
    record: dict | None = None  # its roster entry (None: unrostered)
    mtimes: dict = field(default_factory=dict)  # kata id -> the graded file's modification time
    files: dict = field(default_factory=dict, repr=False)  # kata id -> the bytes graded (None: refused)

    @property
    def rows(self):
        if self.error:
            return [GradeRow(self.path, self.seed, "-", "", "error", [], 0.0)]
        return [GradeRow(self.path, self.seed, check["kata"], catalog.find(check["kata"]).slug, check["status"],
                         check["bugs"], check["seconds"], check.get("sha256") or "", check.get("review", []))
                for check in self.checks]

    def to_json(self):
        data = {"path": self.path, "seed": self.seed, "katas": self.checks, "flags": self.flags}
        return {**data, "error": self.error} if self.error else data


@dataclass
class GradeReport:
    workspaces: list  # WorkspaceGrade, in the order given
    seconds: float
    jobs: int
    state: Path
    resumed: int = 0  # workspaces taken from the state file, not graded again
    isolation: dict = field(default_factory=dict)  # Sandbox.isolation of a probe child, and "insecure"
    ignored: int = 0  # lines of the state file not signed with its key (a cut last line is not counted)
    cpu_own: float = 0.0  # CPU seconds of the grading process itself
    cpu_children: float = 0.0  # of every process it started (workers, zygotes, sandboxes): the kernel's rusage

    @property
    def rows(self):
        return [row for workspace in self.workspaces for row in workspace.rows]

    @property
    def by_status(self):
        counts = Counter(row.status for row in self.rows)
        return {status.value: counts[status.value] for status in Status}

    @property
    def by_kata(self):
        """kata id -> ({status: count}, seconds in all)."""
        totals = {}
        for row in sorted(self.rows, key=lambda row: row.kata):
            counts, seconds = totals.get(row.kata, ({status.value: 0 for status in Status}, 0.0))
            counts[row.status] += 1
            totals[row.kata] = counts, seconds + row.seconds
        return totals

    def to_json(self):
        return {"isolation": self.isolation, "workspaces": [workspace.to_json() for workspace in self.workspaces]}



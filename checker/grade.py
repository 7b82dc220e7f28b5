"""`kata grade`: grade candidates' workspaces with the hidden tests, in parallel, resumably.

Every (workspace, kata) check is one `runner.check` in a pool of worker processes, and the
candidate's code runs in its own sandbox below that: a submission that loops, exits, floods its
output or patches NumPy spoils its own row only. The moment a workspace's last kata is checked, its
checks are appended to a state file (JSON lines: {"path", "seed", "katas": [check objects]}), so an
interrupted batch resumes where it stopped.
"""

import importlib
import json
import multiprocessing
import os
import signal
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from checker import catalog
from checker.pack import MANIFEST
from checker.results import Result, Status, TestOutcome

DEFAULT_STATE = Path("kata-grade.state.jsonl")
STATUSES = [status.value for status in Status]


class GradeError(Exception):
    """A folder that cannot be graded, or a batch that cannot go on (one line for the user)."""


@dataclass(frozen=True)
class Workspace:
    """A candidate's folder, the katas to grade in it and the seed of their hidden tests."""

    path: Path  # as the user wrote it
    katas: tuple  # catalog.Kata, in id order
    seed: int

    @property
    def key(self):
        """What the state file knows a finished workspace by."""
        return str(self.path.resolve()), self.seed, tuple(kata.id for kata in self.katas)


def open_workspace(folder, seed=None):
    """The katas of the folder's manifest (kata-pack.json) with its seed, or, without a manifest, every
    kata file in its katas/ with the default seed. `seed` overrides either."""
    from checker.runner import DEFAULT_SEED

    folder = Path(folder)
    if not folder.is_dir():
        raise GradeError(f"no such folder: {folder}")
    if not (folder / "katas").is_dir():
        raise GradeError(f"{folder} has no katas/ folder: not a candidate's workspace")
    manifest = folder / MANIFEST
    if manifest.exists():
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            katas, pack_seed = [catalog.find(key) for key in data["katas"]], int(data["seed"])
        except (OSError, ValueError, KeyError, TypeError, catalog.UnknownKata) as error:
            raise GradeError(f"{manifest}: not a kata pack manifest ({type(error).__name__}: {error})") from None
    else:
        katas = [kata for kata in catalog.all_katas() if (folder / "katas" / kata.filename).is_file()]
        pack_seed = DEFAULT_SEED
        if not katas:
            raise GradeError(f"{folder}/katas holds no kata file (01_scores.py, ...)")
    katas = tuple(sorted(set(katas), key=lambda kata: kata.id))
    return Workspace(folder, katas, pack_seed if seed is None else seed)


# --- results --------------------------------------------------------------------------------------

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


@dataclass
class WorkspaceGrade:
    path: str
    seed: int
    checks: list  # check objects as in SPEC.md, in kata order

    @property
    def rows(self):
        return [GradeRow(self.path, self.seed, check["kata"], catalog.find(check["kata"]).slug, check["status"],
                         check["bugs"], check["seconds"]) for check in self.checks]

    def to_json(self):
        return {"path": self.path, "katas": self.checks}


@dataclass
class GradeReport:
    workspaces: list  # WorkspaceGrade, in the order given
    seconds: float
    jobs: int
    state: Path
    resumed: int = 0  # workspaces taken from the state file, not graded again

    @property
    def rows(self):
        return [row for workspace in self.workspaces for row in workspace.rows]

    @property
    def by_status(self):
        counts = Counter(row.status for row in self.rows)
        return {status: counts[status] for status in STATUSES}

    @property
    def by_kata(self):
        """kata id -> ({status: count}, seconds in all)."""
        totals = {}
        for row in sorted(self.rows, key=lambda row: row.kata):
            counts, seconds = totals.get(row.kata, ({status: 0 for status in STATUSES}, 0.0))
            counts[row.status] += 1
            totals[row.kata] = counts, seconds + row.seconds
        return totals

    def to_json(self):
        return {"workspaces": [workspace.to_json() for workspace in self.workspaces]}


# --- grading --------------------------------------------------------------------------------------

def state_path(report=None):
    """The state file: beside the report (`PATH.state.jsonl`), else in the current folder."""
    return Path(f"{report}.state.jsonl") if report else DEFAULT_STATE


def holds_a_batch(state):
    """Whether the state file holds an earlier batch (which grading without resume replaces)."""
    return state.is_file() and state.stat().st_size > 0


def grade(workspaces, limits, jobs, state, resume=False, progress=None):
    """Grade every workspace not already finished in `state` (with `resume`); `progress(done, total)`."""
    started = time.monotonic()
    workspaces = list({workspace.key: workspace for workspace in workspaces}.values())
    finished = _read_state(state) if resume else {}
    _rewrite_state(state, [finished[w.key] for w in workspaces if w.key in finished])
    done = {w.key: finished[w.key]["katas"] for w in workspaces if w.key in finished}
    resumed = len(done)
    todo = [w for w in workspaces if w.key not in done]
    if todo:
        _warm(todo)
        with state.open("a", encoding="utf-8") as sink:
            def finished_one(workspace, checks):
                done[workspace.key] = checks
                _append(sink, {"path": workspace.key[0], "seed": workspace.seed, "katas": checks})
                if progress:
                    progress(len(done) - resumed, len(todo))

            _run(todo, limits, jobs, finished_one)
    graded = [WorkspaceGrade(str(w.path), w.seed, done[w.key]) for w in workspaces]
    return GradeReport(graded, time.monotonic() - started, jobs, state, resumed)


def _run(workspaces, limits, jobs, finished_one):
    """Check every kata of every workspace; call `finished_one(workspace, its check objects)` as each
    workspace's last check completes."""
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_signals)
    try:
        futures = {pool.submit(check_one, kata.id, str(w.path / "katas" / kata.filename), limits, w.seed): (w, kata)
                   for w in workspaces for kata in w.katas}
        pending = {w.key: {} for w in workspaces}
        for future in as_completed(futures):
            workspace, kata = futures[future]
            try:
                pending[workspace.key][kata.id] = future.result()
            except BrokenProcessPool:
                raise GradeError("a grading worker process died (out of memory?): finished workspaces are "
                                 "saved; run the same command with --resume") from None
            if len(pending[workspace.key]) == len(workspace.katas):
                finished_one(workspace, [pending[workspace.key][k.id] for k in workspace.katas])
    except KeyboardInterrupt:  # stop now, not after the running checks: their workspaces are redone on --resume
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in multiprocessing.active_children():
            worker.terminate()  # its SIGTERM handler ends its sandbox first
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def check_one(kata_id, path, limits, seed):
    """One kata of one workspace, as a check object; never raises (runs in a worker process)."""
    from checker.runner import check, display_path

    kata = catalog.find(kata_id)
    if not Path(path).is_file():
        return _error(kata, display_path(path), f"no file {display_path(path)}: the workspace lost the stub")
    try:
        return check(kata, path, limits, seed).to_json()
    except SystemExit:  # the parent stopped the batch; runner.check has closed the sandbox on the way
        os._exit(1)
    except Exception as error:  # noqa: BLE001 - a checker failure on one file must not stop the batch
        return _error(kata, display_path(path), f"the grader could not check it: {type(error).__name__}: {error}")


def _error(kata, file, message):
    outcome = TestOutcome("load", "error", message=message)
    return Result(kata.id, kata.slug, file, Status.ERROR, [outcome], 0.0).to_json()


def _worker_signals():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, _exit)


def _exit(signum, frame):
    raise SystemExit(1)  # unwinds through runner.check, whose `finally` kills the sandbox, to check_one


def _warm(workspaces):
    """Load NumPy, the runner and the hidden tests once, before the workers fork off this process."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small arrays: more threads only fight the workers
    importlib.import_module("checker.runner")  # for the workers to inherit

    for kata in {kata for workspace in workspaces for kata in workspace.katas}:
        kata.hidden()


# --- the state file -------------------------------------------------------------------------------

def _read_state(state):
    """key -> entry of every complete line; a line cut short by an interrupt is ignored."""
    entries = {}
    try:
        lines = state.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return entries
    for line in lines:
        try:
            entry = json.loads(line)
            key = (entry["path"], int(entry["seed"]), tuple(check["kata"] for check in entry["katas"]))
        except (ValueError, KeyError, TypeError):
            continue
        entries[key] = entry
    return entries


def _rewrite_state(state, entries):
    """Start the state file with `entries` only (none: a fresh batch), replacing it in one step."""
    state.parent.mkdir(parents=True, exist_ok=True)
    partial = state.with_name(state.name + ".tmp")
    with partial.open("w", encoding="utf-8") as sink:
        for entry in entries:
            sink.write(json.dumps(entry) + "\n")
    os.replace(partial, state)


def _append(sink, entry):
    sink.write(json.dumps(entry) + "\n")
    sink.flush()
    os.fsync(sink.fileno())  # a finished workspace survives a crash or a power cut

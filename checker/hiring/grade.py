"""`kata grade`: grade candidates' workspaces with the hidden tests, in parallel, resumably.

Every (workspace, kata) check is one `runner.check` in a pool of worker processes, and the
candidate's code runs in its own isolated sandbox below that: a submission that loops, exits, floods
its output, patches NumPy or attacks the grader spoils its own row only. The trusted side owns the
truth: the katas and seed come from the roster `kata pack` wrote, found by the pack id and seal of the
workspace's manifest wherever the workspace went (roster.py; the manifest's katas and seed are only
compared with it), this process reads every kata file itself before any candidate code runs (refusing
links that leave the workspace and anything but a regular file), and the hidden tests and references
are loaded before the workers fork. The moment a workspace's last kata is checked, its checks are
appended to a state file, one line per workspace signed with a key kept beside it, so an interrupted
batch resumes where it stopped and a line the grader did not write is ignored.
"""

import dataclasses
import hashlib
import hmac
import importlib
import json
import multiprocessing
import os
import signal
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from checker.engine import catalog
from checker.present import escape
from checker.engine.catalog import MANIFEST
from checker.hiring import review, similarity
from checker.hiring import roster as rostering
from checker.engine.results import Result, Status, TestOutcome
from checker.sandbox import HostError, read_learner_file

ZYGOTE = True  # grade workers fork candidates' processes from a zygote (tests set False to grade without)

DEFAULT_STATE = Path("kata-grade.state.jsonl")


class GradeError(Exception):
    """A folder that cannot be graded, or a batch that cannot go on (one line for the user)."""


MANIFEST_BYTES = 64 * 1024


@dataclass(frozen=True)
class Workspace:
    """A candidate's folder, the katas to grade in it, the seed of their hidden tests, and what the
    grader read of it: {kata id: (bytes or None, sha256 or None, why it was refused or "")}."""

    path: Path  # as the user wrote it
    katas: tuple  # catalog.Kata, in id order
    seed: int
    files: dict = field(default_factory=dict, compare=False, hash=False)
    flags: tuple = ()  # for a human: unrostered, a manifest that disagrees, a refused file
    error: str = ""  # why the workspace cannot be graded at all ("": it can)
    record: dict | None = field(default=None, compare=False, hash=False)  # its roster entry, as `kata pack` wrote it
    mtimes: dict = field(default_factory=dict, compare=False, hash=False)  # kata id -> the file's mtime (its owner's)

    @property
    def key(self):
        """What the state file knows a finished workspace by: a changed file is a new key."""
        hashes = tuple(self.files.get(kata.id, (None, None, ""))[1] for kata in self.katas)
        return str(self.path.resolve()), self.seed, tuple(kata.id for kata in self.katas), hashes


def _manifest(folder):
    """The folder's kata-pack.json as {"katas", "seed", "pack", "seal"}, None without one; ValueError for a
    broken one."""
    path = folder / MANIFEST
    if not os.path.lexists(path):
        return None
    try:
        data = json.loads(read_learner_file(path, MANIFEST_BYTES))
        katas, seed = [catalog.find(key) for key in data["katas"]], int(data["seed"])
    except (OSError, ValueError, KeyError, TypeError, ArithmeticError, RecursionError, catalog.UnknownKata) as error:
        raise ValueError(f"{MANIFEST} is not a kata pack manifest ({type(error).__name__}: {error})") from None
    if not katas:
        raise ValueError(f"{MANIFEST} lists no kata")
    return {"katas": tuple(sorted(set(katas), key=lambda kata: kata.id)), "seed": seed,
            "pack": data.get("pack"), "seal": data.get("seal")}


def _issued(entry):
    """(katas, seed) a roster entry records, or None for an entry that names no known kata."""
    try:
        katas = tuple(sorted({catalog.find(key) for key in entry["katas"]}, key=lambda kata: kata.id))
        return (katas, int(entry["seed"])) if katas else None
    except (KeyError, TypeError, ValueError, catalog.UnknownKata):
        return None


def open_workspace(folder, seed=None, roster=None):
    """The workspace in `folder`, read by this process: its katas and seed from its roster record (found by
    the pack id of its manifest: roster.match), else from its manifest, else every kata file in its katas/
    with the default seed, flagged either way; `seed` overrides. A folder that does not exist raises
    GradeError; one that cannot be graded (no katas/, a broken manifest, anything reading it raised) comes
    back with `error` set: one error row, never a stopped batch."""
    from checker.engine.runner import DEFAULT_SEED

    folder = Path(folder)
    if not folder.is_dir():
        raise GradeError(f"no such folder: {folder}")
    try:
        return _open(folder, seed, roster)
    except Exception as error:  # noqa: BLE001 - whatever the folder holds, it is one workspace's error row
        return Workspace(folder, (), DEFAULT_SEED if seed is None else seed,
                         error=f"the grader could not read it: {type(error).__name__}: {error}")


def _open(folder, seed, roster):
    from checker.engine.runner import DEFAULT_SEED

    error = ""
    try:
        manifest = _manifest(folder)
    except ValueError as problem:
        manifest, error = None, str(problem)
    found = rostering.match(folder, manifest, roster, broken=bool(error))
    flags, record = list(found.flags), found.entry
    issued = _issued(record) if record else None
    if record and issued is None:
        flags.append("UNMATCHED: its roster record names no known kata: graded on its own files")
        record = None
    if issued is not None:
        katas, pack_seed = issued
        if error:
            flags.append(f"{error}; graded on the roster's katas and seed")
            error = ""
        elif manifest is not None and (manifest["katas"], manifest["seed"]) != issued:
            flags.append(f"{MANIFEST} disagrees with the roster (katas {_ids(manifest['katas'])}, seed "
                         f"{manifest['seed']}; issued: katas {_ids(katas)}, seed {pack_seed}): graded as issued")
    elif manifest is not None:
        katas, pack_seed = manifest["katas"], manifest["seed"]
    else:
        katas = tuple(kata for kata in catalog.all_katas() if os.path.lexists(folder / "katas" / kata.filename))
        pack_seed = DEFAULT_SEED
        if not katas and not error:
            error = f"{folder}/katas holds no kata file (01_scores.py, ...)"
    if not os.path.isdir(folder / "katas"):
        error = f"{folder} has no katas/ folder: not a candidate's workspace"
    if error:
        known = issued[1] if issued is not None else DEFAULT_SEED
        return Workspace(folder, (), known if seed is None else seed, {}, tuple(flags), error, record)
    files = {kata.id: read_kata_file(folder, kata) for kata in katas}
    mtimes = {kata.id: _mtime(folder / "katas" / kata.filename) for kata in katas if files[kata.id][0] is not None}
    mtimes = {kata_id: mtime for kata_id, mtime in mtimes.items() if mtime is not None}
    flags += [f"refused katas/{catalog.find(kata_id).filename}: {why}" for kata_id, (_, _, why) in files.items()
              if why and "no such file" not in why]
    flags += [f"katas/{catalog.find(kata_id).filename} has a modification time out of range ({mtime:.0f} s since "
              "1970): shown as unknown" for kata_id, mtime in mtimes.items() if not in_range(mtime)]
    return Workspace(folder, katas, pack_seed if seed is None else seed, files, tuple(flags), "", record, mtimes)


def flag_shared_records(workspaces):
    """The workspaces, each of those matched to a record another one was matched to flagged: one of them is
    not the candidate the pack was issued to."""
    shared = rostering.claimed_twice([workspace.record for workspace in workspaces])
    out = list(workspaces)
    for pack_id, indexes in shared.items():
        for index in indexes:
            others = ", ".join(str(workspaces[i].path) for i in indexes if i != index)
            flag = (f"SHARED RECORD: pack {pack_id} ({workspaces[index].record.get('folder')}) is also claimed by "
                    f"{others}: one of them is not the candidate it was issued to")
            out[index] = dataclasses.replace(out[index], flags=(flag,) + out[index].flags)
    return out


def _mtime(path):
    """The file's own modification time (a link's, not its target's), None if it cannot be read."""
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return None


def in_range(seconds):
    """Whether a modification time is one a date can show (a tmpfs file can claim the year 33658)."""
    import datetime

    try:
        datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    except (ValueError, OverflowError, OSError):
        return False
    return True


def _ids(katas):
    return ",".join(kata.id for kata in katas) or "none"


LINK_CHARS = 100  # of a refused link's target shown: it is the candidate's text, and must not read as rows


def _shown(target):
    """A refused link's target as one short run of text: hidden characters and newlines shown by code
    point, runs of blanks one space, cut to LINK_CHARS, so it cannot wrap into lines that read as the
    grader's."""
    return escape.cut(" ".join(escape.visible(str(target)).split()), LINK_CHARS)


def read_kata_file(folder, kata):
    """(bytes, sha256, "") of the kata's file, or (None, None, why) for one that must not be graded: a link
    leaving the workspace, not a regular file (a FIFO would hang the reader), too large, missing."""
    path = folder / "katas" / kata.filename
    if not os.path.lexists(path):
        return None, None, f"no such file: the workspace lost the stub"
    try:
        target = Path(os.path.realpath(path))  # a loop stays a path, and fails to open below
    except RecursionError:  # thousands of links in a chain (the kernel follows 40)
        return None, None, "a chain of links too long to follow"
    if not target.is_relative_to(os.path.realpath(folder)):
        return None, None, f"a link leaving the workspace (to {_shown(target)})"
    try:
        data = read_learner_file(target)
    except (OSError, ValueError) as error:
        return None, None, getattr(error, "strerror", None) or str(error)
    return data, hashlib.sha256(data).hexdigest(), ""


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


# --- grading --------------------------------------------------------------------------------------

def state_path(report=None):
    """The state file: beside the report (`PATH.state.jsonl`), else in the current folder."""
    return Path(f"{report}.state.jsonl") if report else DEFAULT_STATE


def holds_a_batch(state):
    """Whether the state file holds an earlier batch (which grading without resume replaces)."""
    return state.is_file() and state.stat().st_size > 0


PROBE_SECONDS = 30  # for the empty probe sandbox to start, whatever --timeout the candidates get (a busy machine)


def probe_isolation(limits):
    """The isolation a sandbox gets here, found by starting one on an empty file (its bytes given: no disk);
    GradeError if none starts."""
    from checker.sandbox import Limits, Sandbox, SandboxError

    try:
        with Sandbox("empty.py", Limits(seconds=max(limits.seconds, PROBE_SECONDS)), source=b"") as sandbox:
            return sandbox.isolation
    except HostError as error:  # the grader's own machine: nothing graded, no candidate blamed
        raise GradeError(f"{error}; nothing was graded") from None
    except SandboxError as error:
        raise GradeError(f"no sandbox could be started here to grade in ({error}): is the machine "
                         "overloaded?") from None


def grade(workspaces, limits, jobs, state, resume=False, progress=None, isolation=None):
    """Grade every workspace not already finished in `state` (with `resume`); `progress(done, total, the
    workspace just finished or None)` as they finish."""
    started = time.monotonic()
    workspaces = list({workspace.key: workspace for workspace in workspaces}.values())
    key = state_key(state)
    finished, ignored = _read_state(state, key) if resume else ({}, 0)
    _rewrite_state(state, key, [finished[_key_text(w.key)] for w in workspaces if _key_text(w.key) in finished])
    again = rostering.remember(state.with_name(state.name + ".packs"), key, [(w.record, w.path, _digest(w)) for w in workspaces],
                               resume)  # {index: a pack id an earlier batch graded from another folder}
    done = {w.key: finished[_key_text(w.key)]["katas"] for w in workspaces if _key_text(w.key) in finished}
    resumed = len(done)
    for workspace in workspaces:
        if workspace.error:  # nothing to run: one error row
            done[workspace.key] = []
    todo = [w for w in workspaces if w.key not in done]
    before = len(done)  # resumed and unreadable workspaces: not part of the progress
    if todo:
        if progress:
            progress(0, len(todo), None)
        _warm(todo)
        with state.open("a", encoding="utf-8") as sink:
            def finished_one(workspace, checks):
                entry = {"key": _key_text(workspace.key), "path": workspace.key[0], "seed": workspace.seed}
                try:
                    _append(sink, key, {**entry, "katas": checks})
                except (ValueError, TypeError, RecursionError) as error:  # checks JSON cannot hold: an error row
                    checks = [failed_check(kata, workspace.path / "katas" / kata.filename, error)
                              for kata in workspace.katas]
                    _append(sink, key, {**entry, "katas": checks})
                done[workspace.key] = checks
                if progress:
                    progress(len(done) - before, len(todo), str(workspace.path))

            _run(todo, limits, jobs, finished_one)
    graded = [WorkspaceGrade(str(w.path), w.seed, done[w.key], list(w.flags) + ([again[i]] if i in again else []),
                             w.error, w.record, w.mtimes, {kata_id: read[0] for kata_id, read in w.files.items()})
              for i, w in enumerate(workspaces)]
    return GradeReport(graded, time.monotonic() - started, jobs, state, resumed, isolation or {}, ignored)


def _digest(workspace):
    """One SHA-256 of a workspace's kata files as read (what tells a hand-in graded again from another)."""
    text = json.dumps(sorted((kata_id, read[1]) for kata_id, read in workspace.files.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def _run(workspaces, limits, jobs, finished_one):
    """Check every kata of every workspace; call `finished_one(workspace, its check objects)` as each
    workspace's last check completes. A check that kills its worker process (out of memory, say) is that
    kata's error: the pool starts again for the rest, and each check that was in flight runs alone once."""
    todo = [(w, kata) for w in workspaces for kata in w.katas]  # in the order the pool takes them
    pending = {w.key: {} for w in workspaces}

    def record(workspace, kata, check):
        pending[workspace.key][kata.id] = check
        if len(pending[workspace.key]) == len(workspace.katas):
            finished_one(workspace, [pending[workspace.key][k.id] for k in workspace.katas])

    while todo:
        unfinished = _pool_run(todo, limits, jobs, record)
        suspects, todo = unfinished[:jobs + 1], unfinished[jobs + 1:]  # a pool runs its jobs in order
        for workspace, kata in suspects:  # the one that broke the pool was among the first
            if _pool_run([(workspace, kata)], limits, 1, record):
                record(workspace, kata, failed_check(kata, workspace.path / "katas" / kata.filename, WorkerDied(
                    "its grading worker process died while checking it (out of memory?)")))


class WorkerDied(Exception):
    """A grading worker process ended while it checked a kata."""


def _pool_run(todo, limits, jobs, record):
    """Run (workspace, kata) checks in a pool of `jobs` workers, `record`ing each; the checks left
    unfinished (in `todo`'s order) if a worker process died."""
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_start)
    unfinished = []
    try:
        futures = {pool.submit(check_one, kata.id, str(w.path / "katas" / kata.filename), limits, w.seed,
                               w.files.get(kata.id)): index for index, (w, kata) in enumerate(todo)}
        for future in as_completed(futures):
            workspace, kata = todo[futures[future]]
            try:
                check = future.result()
            except HostError as error:  # the grader's own machine: no candidate's failure
                raise GradeError(f"{error}; the batch stopped: finished workspaces are saved, run the same "
                                 "command with --resume once that is fixed") from None
            except BrokenProcessPool:
                unfinished.append(futures[future])
                continue
            except Exception as error:  # noqa: BLE001 - e.g. a check object that did not come back whole
                check = failed_check(kata, workspace.path / "katas" / kata.filename, error)
            record(workspace, kata, check)
    except KeyboardInterrupt:  # stop now, not after the running checks: their workspaces are redone on --resume
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in multiprocessing.active_children():
            worker.terminate()  # its SIGTERM handler ends its sandbox first
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return [todo[index] for index in sorted(unfinished)]


def check_one(kata_id, path, limits, seed, read=None):
    """One kata of one workspace, as a check object; never raises (runs in a worker process). `read` is
    (bytes, sha256, why refused) as the parent read the file: the worker never reads it from disk."""
    kata = catalog.find(kata_id)
    data, digest, refused = read or (None, None, "the grader did not read it")
    extra = {"sha256": digest, "review": []}
    try:
        from checker.engine.runner import check, display_path

        path = display_path(path)
        if data is None:
            return {**_error(kata, path, f"{path} was not graded: {refused}"), **extra, "sha256": None}
        extra["review"] = review.reasons(data)
        result = check(kata, path, limits, seed, source=data, author="the candidate's")
        found = {**result.to_json(), **extra, "frontend": result.frontend, **_for_graders(result)}
        return {**found, "tests": [{**test, "message": _cut(test["message"])} for test in found["tests"]]}
    except SystemExit:  # the parent stopped the batch; runner.check has closed the sandbox on the way
        os._exit(1)
    except HostError:  # the grader's own disk is full: a batch error, not this file's
        raise
    except Exception as error:  # noqa: BLE001 - a checker failure on one file must not stop the batch
        return failed_check(kata, path, error, extra)


MESSAGE_CHARS = 2000  # of a check's message the grader keeps: an exception can say megabytes, each check


def _cut(message):
    more = len(message) - MESSAGE_CHARS
    return message if more <= 0 else f"{message[:MESSAGE_CHARS]}… ({more:,} more characters)"


def failed_check(kata, path, error, extra=None):
    """The check object of a kata the grader could not check (`error`: what raised)."""
    message = _cut(f"the grader could not check it: {type(error).__name__}: {error}")
    return {**_error(kata, str(path), message), **(extra or {"sha256": None, "review": []})}


def _for_graders(result):
    """What the report keeps of a check beyond its JSON: the weight pictures of failed tests and what the
    tests left for graders (kata 10's planted bugs). Never part of a learner's `kata check --json`."""
    import numpy as np

    pictures = []
    for test in result.tests:
        grid = test.picture
        if grid is not None:
            allowed = None if grid.allowed is None else np.broadcast_to(grid.allowed, np.shape(grid.got)).tolist()
            pictures.append({"test": test.name, "title": grid.title, "got": np.asarray(grid.got, float).tolist(),
                             "want": np.asarray(grid.want, float).tolist(), "allowed": allowed})
    return {"pictures": pictures, "details": result.details}


def _error(kata, file, message):
    outcome = TestOutcome("load", Status.ERROR, message=message)
    return Result(kata.id, kata.slug, file, Status.ERROR, [outcome], 0.0).to_json()


def _worker_start():
    from checker.sandbox import warm

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, _exit)
    if ZYGOTE:
        warm.enable()  # each worker forks its checks from its own zygote: a fork per check, not a start
    else:
        warm.disable()  # as the parent may have enabled it


def _exit(signum, frame):
    raise SystemExit(1)  # unwinds through runner.check, whose `finally` kills the sandbox, to check_one


def _warm(workspaces):
    """Load NumPy, the runner and the hidden tests once, before the workers fork off this process."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small arrays: more threads only fight the workers
    importlib.import_module("checker.engine.runner")  # for the workers to inherit

    katas = {kata for workspace in workspaces for kata in workspace.katas}
    for kata in katas:
        kata.hidden()
        kata.reference()  # never read from disk again once candidate code has run
    similarity.preload(katas)  # the references and stubs similarity compares with, likewise


# --- the state file -------------------------------------------------------------------------------

def state_key(state):
    """The key that signs the state file's lines, kept beside it (readable by this user only, and by no
    sandbox): made on first use."""
    state.parent.mkdir(parents=True, exist_ok=True)
    return rostering.private_key(state.with_name(state.name + ".key"))


def _key_text(key):
    return json.dumps(key)


def _sign(key, entry):
    return hmac.new(key, json.dumps(entry, sort_keys=True).encode(), hashlib.sha256).hexdigest()


def _read_state(state, key):
    """({key text: entry} of every complete line this grader signed, how many whole lines were not signed by
    it); a line cut short by a crash is left out without a word."""
    entries, ignored = {}, 0
    try:
        lines = state.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return entries, ignored
    for line in lines:
        try:
            signed = json.loads(line)
        except ValueError:
            continue
        try:
            entry, mac = signed["entry"], signed["mac"]
            if not hmac.compare_digest(_sign(key, entry), str(mac)):
                raise ValueError
            entries[entry["key"]] = entry
        except (ValueError, KeyError, TypeError):
            ignored += 1
    return entries, ignored


def _rewrite_state(state, key, entries):
    """Start the state file with `entries` only (none: a fresh batch), replacing it in one step."""
    state.parent.mkdir(parents=True, exist_ok=True)
    partial = state.with_name(state.name + ".tmp")
    with partial.open("w", encoding="utf-8") as sink:
        for entry in entries:
            sink.write(json.dumps({"entry": entry, "mac": _sign(key, entry)}) + "\n")
    os.replace(partial, state)


def _append(sink, key, entry):
    sink.write(json.dumps({"entry": entry, "mac": _sign(key, entry)}) + "\n")
    sink.flush()
    os.fsync(sink.fileno())  # a finished workspace survives a crash or a power cut

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

import contextlib
import importlib
import multiprocessing
import multiprocessing.util
import os
import re
import signal
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from checker.engine import catalog
from checker.hiring import review, similarity
from checker.hiring import roster as rostering
from checker.hiring.batch import GradeReport, GradeRow, WorkspaceGrade  # noqa: F401 - the batch's data
from checker.hiring.state import (DEFAULT_STATE, _append, _key_text, _read_state, _rewrite_state,  # noqa: F401
                                  _sign, holds_a_batch, state_key, state_path)
from checker.hiring.workspaces import (GradeError, Workspace, files_digest, flag_shared_records,  # noqa: F401
                                       open_workspace, read_kata_file)
from checker.engine.results import Result, Status, TestOutcome
from checker.sandbox import HostError

ZYGOTE = True  # grade workers fork candidates' processes from a zygote (tests set False to grade without)


def probe_isolation(limits):
    """The isolation a sandbox gets here, found by starting one on an empty file (its bytes given: no disk);
    GradeError if none starts."""
    from checker.sandbox import SandboxError
    from checker.sandbox.box import probe

    try:
        return probe(limits)
    except HostError as error:  # the grader's own machine: nothing graded, no candidate blamed
        raise GradeError(f"{error}; nothing was graded") from None
    except SandboxError as error:
        raise GradeError(f"no sandbox could be started here to grade in ({error}): is the machine "
                         "overloaded?") from None


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP on the grade: handled as Ctrl-C is (every process it started ends, --resume goes on)."""

    def __init__(self, signal_name):
        super().__init__(signal_name)
        self.signal_name = signal_name


@contextlib.contextmanager
def stopped_by_signals():
    """While grading, SIGTERM and SIGHUP stop the batch as Ctrl-C does, instead of leaving workers behind."""
    def stop(signum, frame):
        raise Stopped(signal.Signals(signum).name)

    try:
        before = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGHUP)}
    except ValueError:  # not the main thread: nothing to install
        before = {}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def cpu_of_children():
    """CPU seconds (user + system) of every process this one started and waited for, theirs included: the
    kernel's account, which holds the sandboxes' CPU once their workers are reaped."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_of_self():
    return time.process_time()


def grade(workspaces, limits, jobs, state, resume=False, progress=None, isolation=None):
    """Grade every workspace not already finished in `state` (with `resume`); `progress(done, total, the
    workspace just finished or None)` as they finish."""
    started, children, own = time.monotonic(), cpu_of_children(), cpu_of_self()
    workspaces = list({workspace.key: workspace for workspace in workspaces}.values())
    key = state_key(state)
    finished, ignored = _read_state(state, key) if resume else ({}, 0)
    _rewrite_state(state, key, [finished[_key_text(w.key)] for w in workspaces if _key_text(w.key) in finished])
    ledger = state.with_name(state.name + ".packs")  # {index: a pack id an earlier batch graded from elsewhere}
    again = rostering.remember(ledger, key, [(w.record, w.path, files_digest(w)) for w in workspaces], resume)
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

            try:
                _run(todo, limits, jobs, finished_one)
            except KeyboardInterrupt as stop:  # the workers have ended: the state file says why it stopped
                note = {"interrupted": getattr(stop, "signal_name", "SIGINT"), "finished": len(done) - before,
                        "of": len(todo), "at": time.time()}
                _append(sink, key, note)
                raise
    graded = [WorkspaceGrade(str(w.path), w.seed, done[w.key], list(w.flags) + ([again[i]] if i in again else []),
                             w.error, w.record, w.mtimes, {kata_id: read[0] for kata_id, read in w.files.items()})
              for i, w in enumerate(workspaces)]
    return GradeReport(graded, time.monotonic() - started, jobs, state, resumed, isolation or {}, ignored,
                       cpu_of_self() - own, cpu_of_children() - children)


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
                               w.files.get(kata.id), missing_frontend((w.files.get(kata.id) or (None,))[0])): index
                   for index, (w, kata) in enumerate(todo)}
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


def check_one(kata_id, path, limits, seed, read=None, missing=""):
    """One kata of one workspace, as a check object; never raises (runs in a worker process). `read` is
    (bytes, sha256, why refused) as the parent read the file: the worker never reads it from disk; `missing`
    names what the grader lacks to run it ("torch"), as the parent found: not graded, not scored."""
    kata = catalog.find(kata_id)
    data, digest, refused = read or (None, None, "the grader did not read it")
    extra = {"sha256": digest, "review": []}
    try:
        from checker.engine.runner import check, display_path

        path = display_path(path)
        if data is None:
            return {**_error(kata, path, f"{path} was not graded: {refused}"), **extra, "sha256": None}
        extra["review"] = review.reasons(data)
        if missing:  # the grader's install, never the candidate's error: not scored (scoring.py)
            from checker.sandbox.torch_bridge import INSTALL_HINT

            return {**_error(kata, path, f"not graded here: {INSTALL_HINT}"), **extra, "grader_missing": missing}
        result = check(kata, path, limits, seed, source=data, author="the candidate's")
        extra["review"] += fake_verdicts(result.output, data)
        if result.status == Status.PASSED:  # kata defend: questions about the candidate's own lines, for the onsite
            from checker.practice.defend_session import follow_ups

            extra["follow_up"] = follow_ups(kata, path, data, seed)
        found = {**result.to_json(), **extra, "frontend": result.frontend, **_for_graders(result)}
        return {**found, "tests": [{**test, "message": _cut(test["message"])} for test in found["tests"]]}
    except SystemExit:  # the parent stopped the batch; runner.check has closed the sandbox on the way
        os._exit(1)
    except HostError:  # the grader's own disk is full: a batch error, not this file's
        raise
    except Exception as error:  # noqa: BLE001 - a checker failure on one file must not stop the batch
        return failed_check(kata, path, error, extra)


_VERDICT = re.compile(r"(?im)^.{0,40}\b(passed|failed|ok)\b.{0,40}\b\d+\s*(of|/)\s*\d+\b.*$|"
                      r"^\s*\{.{0,200}\"status\"\s*:\s*\"(passed|failed)\"")


_QUOTED = re.compile(r"""(["'])(.{4,200}?)\1""")


def fake_verdicts(output, source=b"", most=3):
    """Review reasons for printed lines, or strings in the file, that look like the checker's own verdict
    ("PASSED 19 of 19"): a candidate's output the grader's reader could take for the grader's."""
    text = source[:1 << 20].decode("utf-8", errors="replace") if isinstance(source, bytes) else str(source)
    quoted = "\n".join(match.group(2) for match in _QUOTED.finditer(text))
    found = [match.group(0).strip()[:80] for match in _VERDICT.finditer(output[:1 << 20] + "\n" + quoted)]
    if not found:
        return []
    shown = "; ".join(repr(line) for line in dict.fromkeys(found[:most]))
    return [f"prints what looks like the checker's own verdict ({len(found)} line{'s' if len(found) > 1 else ''}: "
            f"{shown})"]  # concerns.py: tampering


def torch_available():
    """Whether this grader can run a file written in PyTorch (tests make it say no)."""
    import importlib.util

    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def missing_frontend(data):
    """"torch" when the file is written in PyTorch and this grader has none, else ""."""
    from checker.sandbox.torch_bridge import imports_torch

    return "torch" if data and b"torch" in data and imports_torch(data) and not torch_available() else ""


def needs_torch(workspaces):
    """[(workspace, kata id)] of the files written in PyTorch this grader cannot run."""
    return [(w, kata_id) for w in workspaces for kata_id, (data, _, _) in w.files.items() if missing_frontend(data)]


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
    signal.signal(signal.SIGHUP, _exit)  # a closed terminal: end the sandbox first, as SIGTERM does
    if ZYGOTE:
        warm.enable()  # each worker forks its checks from its own zygote: a fork per check, not a start
        # a pool worker skips atexit: end and reap its zygote as it exits, so the kernel's account of the
        # batch's CPU (the parent's children's rusage) holds the sandboxes' too
        multiprocessing.util.Finalize(None, warm.disable, exitpriority=10)
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



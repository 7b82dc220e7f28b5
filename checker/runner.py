"""Check one learner file against one kata's hidden tests: the sandbox runs the learner's calls,
the hidden tests compare here, and the outcome is a `Result`."""

import inspect
import os
import time
import zlib
from pathlib import Path

from checker.results import Result, TestOutcome, overall_status
from checker.sandbox import Died, LearnerError, Limits, Sandbox, SandboxError, Timeout

DEFAULT_SEED = 2017  # "Attention Is All You Need"


class LearnerObject:
    """An object living in the sandbox (a learner's `KVCache`): its methods run there too."""

    def __init__(self, sandbox, handle):
        self._sandbox, self._handle = sandbox, handle

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return LearnerFunction(self._sandbox, name, target=self._handle)

    def __len__(self):
        return LearnerFunction(self._sandbox, "__len__", target=self._handle)()

    def __repr__(self):
        return f"<learner object #{self._handle.id}>"


class LearnerFunction:
    def __init__(self, sandbox, name, params=(), target=None):
        self._sandbox, self.name, self.params, self.target = sandbox, name, params, target

    def __call__(self, *args, **kwargs):
        return self._run(args, kwargs, return_args=False)

    def keeping_args(self, *args, **kwargs):
        """`(result, args)`, the arguments as they were after the call (to see what it changed)."""
        return self._run(args, kwargs, return_args=True)

    def _run(self, args, kwargs, return_args):
        from checker.sandbox.worker import Handle

        sent = [arg._handle if isinstance(arg, LearnerObject) else arg for arg in args]
        try:
            reply = self._sandbox.call(self.name, sent, kwargs, self.target, return_args)
        except LearnerError as error:
            error.call = self.describe(*args, **kwargs)
            raise
        result = reply[0] if return_args else reply
        if isinstance(result, Handle):
            result = LearnerObject(self._sandbox, result)
        elif _has_nonfinite(result):
            self._sandbox.last_nonfinite_call = (self.name, sent, kwargs, self.target)
        return (result, reply[1]) if return_args else result

    def describe(self, *args, **kwargs):
        from checker.testkit import call_text

        named = dict(zip(self.params, args)) if len(self.params) >= len(args) else {
            f"arg{i}": arg for i, arg in enumerate(args)}
        return call_text(self.name, **named, **kwargs)


def _has_nonfinite(result):
    import numpy as np

    parts = result if isinstance(result, tuple) else (result,)
    return any(isinstance(p, np.ndarray) and p.dtype.kind == "f" and not np.isfinite(p).all() for p in parts)


class Learner:
    """The learner's module as hidden tests see it: `kata.softmax(x)` runs in the sandbox."""

    def __init__(self, sandbox, api):
        self._sandbox, self._api = sandbox, api

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return LearnerFunction(self._sandbox, name, self._api.get(name, ()))


def hidden_tests(hidden):
    """The hidden module's tests, in the order they are written."""
    tests = [f for name, f in vars(hidden).items() if name.startswith("test_") and callable(f)]
    return sorted(tests, key=lambda f: f.__code__.co_firstlineno)


def display_path(path):
    path = Path(path).resolve()
    try:
        return os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path)
    except ValueError:
        return str(path)


def check(kata, path, limits=None, seed=DEFAULT_SEED):
    """Run `kata`'s hidden tests on the learner file at `path`."""
    started = time.monotonic()
    sandbox = Sandbox(path, limits or Limits())  # first, so the child loads NumPy while we do
    try:
        outcomes = _run_all(kata, sandbox, seed)
        output = sandbox.output()
    finally:
        sandbox.close()
    return Result(kata.id, kata.slug, display_path(path), overall_status(outcomes), outcomes,
                  time.monotonic() - started, output)


def _run_all(kata, sandbox, seed):
    hidden = kata.hidden()
    try:
        missing = sandbox.load(hidden.API)
    except (LearnerError, SandboxError) as error:
        return [_load_failure(error)]
    if missing:
        names = ", ".join(f"{name}()" for name in missing)
        return [TestOutcome("load", "error", message=f"the file defines no {names}: keep the stub's names")]
    fixtures = {"kata": Learner(sandbox, hidden.API), "ref": kata.reference()}
    outcomes = []
    import numpy as np

    for test in hidden_tests(hidden):
        name = test.__name__.removeprefix("test_")
        fixtures["rng"] = np.random.default_rng([seed, zlib.crc32(name.encode())])
        outcomes.append(run_test(test, name, fixtures))
        if sandbox.process.poll() is not None:  # timed out or died: nothing left to ask
            break
    return outcomes


def run_test(test, name, fixtures):
    import numpy as np

    from checker.testkit import Failure

    wanted = inspect.signature(test).parameters
    try:
        with np.errstate(all="ignore"):  # the learner's NaNs are diagnosed, not warned about
            test(**{param: fixtures[param] for param in wanted})
    except Failure as failure:
        outcome = TestOutcome(name, "failed", failure.bug, failure.message, failure.exact, picture=failure.picture)
        if failure.nonfinite:
            _trace_nonfinite(outcome, fixtures["kata"]._sandbox)
        return outcome
    except LearnerError as error:
        call = getattr(error, "call", "the code")
        if error.not_implemented:
            return TestOutcome(name, "not-started", message=f"{call} still raises NotImplementedError")
        return TestOutcome(name, "error", message=f"{call} raised {error}", where=error.frames)
    except Timeout as timeout:
        return TestOutcome(name, "timeout", message=f"the learner's code gave {timeout}")
    except Died as died:
        return TestOutcome(name, "error", message=str(died))
    except Exception as error:  # noqa: BLE001 - a result the test could not make sense of
        if os.environ.get("KATA_DEBUG"):
            raise
        return TestOutcome(name, "failed", message=f"could not check the result: {type(error).__name__}: {error}")
    return TestOutcome(name, "passed")


def _trace_nonfinite(outcome, sandbox):
    """Say which line of the learner's file made the first NaN or inf of the failing call."""
    call = getattr(sandbox, "last_nonfinite_call", None)
    if call is None:
        return
    try:
        trace = sandbox.trace(*call)
    except SandboxError:
        return
    if trace:
        line, function, code = trace["frames"][-1]
        outcome.message += f"; the first NaN/inf came from line {line} ({function}): {code}  -> {trace['message']}"


def _load_failure(error):
    if isinstance(error, Timeout):
        return TestOutcome("load", "timeout", message=f"importing the file gave {error}")
    if isinstance(error, LearnerError):
        if error.not_implemented:
            return TestOutcome("load", "not-started", message="importing the file raises NotImplementedError")
        return TestOutcome("load", "error", message=f"importing the file raised {error}", where=error.frames)
    return TestOutcome("load", "error", message=f"importing the file: {error}")

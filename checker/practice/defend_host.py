"""One sandbox child for a whole defence: the learner's file, its mutants and its instrumented copy, each loaded
in the child as a module of its own, so a defence costs one fork and not one per mutant.

The parent writes the host file itself (`host_source`: trusted code, the files' bytes as literals) and sends it to
a `Sandbox` like any learner file: the child execs each file into its own module when first asked, and calls
into it. Nothing of a module is trusted or read back but the plain values its calls return. A module whose call
loops or kills the child ends that child only: the next module asked gets a fresh one (`Host.box`), so one
mutant's time-out is that mutant's outcome, never the others'. Each module's calls get `seconds` of their own.
"""

import time

from checker.sandbox import Limits, Sandbox, SandboxError

_HOST = '''# kata defend's host: each file below is loaded as a module of its own, on demand.
import sys as _sys
import types as _types
{torch}
_FILES = {files!r}
_MODULES = {{}}


def kata_host_load_(number, /):
    module = _types.ModuleType("kata_learner_%d" % number)
    module.__file__ = __file__
    _sys.modules[module.__name__] = module
    exec(compile(_FILES[number], __file__, "exec", dont_inherit=True), module.__dict__)
    _MODULES[number] = module
    return True


def kata_host_call_(number, name, /, *args, **kwargs):
    if name == "__len__":
        return len(args[0])
    return getattr(_MODULES[number], name)(*args, **kwargs)


def kata_host_run_(number, steps, arm, /):
    """A call's steps in one request: (name, args, kwargs, object whose method, name to keep the result as);
    `arm`: the line a probe fires at, set just before the last step (0 until then)."""
    module, made, result = _MODULES[number], {{}}, None
    for index, (name, args, kwargs, target, keep) in enumerate(steps):
        if arm:
            module.kata_probe_at_(arm if index == len(steps) - 1 else 0)
        args = [made[a[1]] if _is_object(a) else a for a in args]
        kwargs = {{k: made[v[1]] if _is_object(v) else v for k, v in kwargs}}  # (name, value) pairs: the wire has no dict
        if target is None:
            result = getattr(module, name)(*args, **kwargs)
        else:
            result = len(made[target]) if name == "__len__" else getattr(made[target], name)(*args, **kwargs)
        if keep:
            made[keep] = result
    return result


def kata_host_answers_(number, runs, /):
    """Many runs in one request, each (steps, arm): ("ok", result), ("error", the exception's type), or
    ("exit", what a SystemExit carried: a probe's report)."""
    found = []
    for steps, arm in runs:
        try:
            found.append(("ok", kata_host_run_(number, steps, arm)))
        except SystemExit as stop:
            found.append(("exit", str(stop.code)[:4096]))
        except Exception as error:
            found.append(("error", type(error).__name__))
    return found


def _is_object(value):
    return isinstance(value, tuple) and len(value) == 2 and value[0] == "kata-object"
'''


def host_source(files, torch=False):
    """The host file for `files` (bytes each); `torch`: the learner's file imports torch, so the host does too
    (its calls then get tensors, as the learner's file alone would)."""
    return _HOST.format(files=list(files), torch="import torch  # noqa: F401" if torch else "").encode()


class Host:
    """The child serving a defence's files; `load(n)` before `call(n, ...)`; a dead child is replaced."""

    def __init__(self, path, files, torch=False, seconds=2.0):
        self.path, self.source, self.seconds = path, host_source(files, torch), seconds
        self._box, self._loaded = None, set()

    def box(self):
        if self._box is None or self._box.process.poll() is not None:
            if self._box is not None:
                self._box.close()
            self._box = Sandbox(self.path, Limits(seconds=max(self.seconds, 1.0) * 4), source=self.source)
            self._box.load([])
            self._loaded = set()
        return self._box

    def load(self, number):
        """Load file `number` (once per child); LearnerError or SandboxError when it cannot be imported."""
        box = self.box()
        if number not in self._loaded:
            box.deadline = time.monotonic() + self.seconds
            box.call("kata_host_load_", (number,))
            self._loaded.add(number)
        return box

    def start(self, number):
        """Load file `number` and give its calls a time limit of their own; the child serving it."""
        box = self.load(number)
        box.deadline = time.monotonic() + self.seconds
        return box

    def close(self):
        if self._box is not None:
            self._box.close()
            self._box = None


class Module:
    """One file of a host: `run(call)` runs a call's steps in one request."""

    def __init__(self, host, number):
        self.host, self.number = host, number
        self.box = host.start(number)

    def run(self, call, arm=0):
        """The last step's result (a call of defend_run); `arm`: the probe's line, or 0."""
        return self.box.call("kata_host_run_", (self.number, _steps(call), arm), {})

    def answers(self, runs):
        """[(kind, value)] for many (call, arm) in one request (see kata_host_answers_), the time limit theirs
        together; Timeout or SandboxError when the child could not answer them all."""
        self.box.deadline = time.monotonic() + self.host.seconds * max(len(runs), 1)
        found = self.box.call("kata_host_answers_", (self.number, [(_steps(call), arm) for call, arm in runs]), {})
        if not isinstance(found, list) or len(found) != len(runs) or not all(
                isinstance(item, tuple) and len(item) == 2 and item[0] in ("ok", "error", "exit") for item in found):
            raise SandboxError("the host's answers are not what it was asked for")
        return found


def _steps(call):
    return [(step.call, [_sent(a) for a in step.args], [(k, _sent(v)) for k, v in step.kwargs.items()],
             step.target, step.name) for step in call.steps]

    @property
    def process(self):
        return self.box.process


def _sent(value):
    from checker.practice.defend_run import Handle

    return ("kata-object", value.name) if isinstance(value, Handle) else value


__all__ = ["Host", "Module", "SandboxError", "host_source"]

"""The learner's module as hidden tests see it: `kata.softmax(x)` looks local and runs in the sandbox."""

from checker.sandbox import LearnerError


class SandboxSession:
    """One sandbox, and what the tests may want to ask it again."""

    def __init__(self, sandbox, file, call_text, failure):
        self.sandbox = sandbox
        self.file = file  # the learner's file as the report shows it
        self.call_text = call_text  # (name, **args) -> the call as a failure message shows it
        self.failure = failure  # the exception a failed hidden test raises (the test kit's, handed in)
        self.author = "your"  # whose code a message speaks of: "the candidate's" in grading
        self.nonfinite_calls = []  # (call text, (name, args, kwargs, target)) of this test's NaN/inf results
        self.calls = []  # this test's calls, in order (Call), for a repro of its failure (see checker/practice/repro.py)

    def trace_nonfinite(self, message=""):
        """Where in the learner's file the failing call's result got its first NaN or inf, or None.

        The failing call is the one the failure's message names; else the test's first NaN-holding call
        (a later call, with other inputs, may make its NaN elsewhere)."""
        if not self.nonfinite_calls:
            return None
        named = [call for text, call in self.nonfinite_calls if text and text in message]
        return self.sandbox.trace(*(named or [self.nonfinite_calls[0][1]])[0])


class Call:
    """One call a hidden test made into the sandbox, as sent: what a repro replays."""

    __slots__ = ("function", "args", "kwargs", "made", "result")

    def __init__(self, function, args, kwargs):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.made = None  # the id of the learner object it returned, if it returned one
        self.result = None  # what came back, as the test saw it: where a repro looks for the reported value

    @property
    def name(self):
        return self.function.name

    @property
    def target(self):
        return self.function.target

    @property
    def text(self):
        """The call as failure messages show it."""
        return self.function.describe(*self.args, **self.kwargs)


class Learner:
    def __init__(self, session, api):
        self._session, self._api = session, api

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return LearnerFunction(self._session, name, self._api.get(name, ()))


class LearnerObject:
    """An object living in the sandbox (a learner's `KVCache`): its methods run there too."""

    def __init__(self, session, handle):
        self._session, self._handle = session, handle

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return LearnerFunction(self._session, name, target=self._handle)

    # Python's operations on the object run in the sandbox too, and are recorded like any call, so a
    # repro replays `len(cache)` or `cache[0]` as the test did (the child applies len(), bool(), ...)
    def __len__(self):
        return self._operation("__len__")

    def __bool__(self):
        return bool(self._operation("__bool__"))

    def __iter__(self):
        return iter(self._operation("__iter__"))

    def __getitem__(self, key):
        return self._operation("__getitem__", key)

    def __eq__(self, other):
        return self._operation("__eq__", other)

    __hash__ = object.__hash__  # a proxy is one object of the parent's, whatever its __eq__ says

    def _operation(self, name, *args):
        return LearnerFunction(self._session, name, target=self._handle)(*args)

    def __repr__(self):
        return f"<learner object #{self._handle.id}>"


class LearnerFunction:
    def __init__(self, session, name, params=(), target=None):
        self._session, self.name, self.params, self.target = session, name, params, target

    def __call__(self, *args, **kwargs):
        return self._run(args, kwargs, return_args=False)

    def keeping_args(self, *args, **kwargs):
        """`(result, args)`, the arguments as they were after the call (to see what it changed)."""
        return self._run(args, kwargs, return_args=True)

    def keeping_result(self, *args, **kwargs):
        """`(result, kept)`: the call, and `kept()` reading what the very object it returned holds later (in
        the child): a result that changes because of a later call is a module-level buffer handed back twice."""
        sent = [arg._handle if isinstance(arg, LearnerObject) else arg for arg in args]
        self._session.calls.append(Call(self, args, kwargs))
        try:
            result, handle = self._session.sandbox.call(self.name, sent, kwargs, self.target, keep=True)
        except LearnerError as error:
            error.call = self.describe(*args, **kwargs)
            raise
        return result, lambda: self._session.sandbox.read(handle)

    def measuring(self, *args, counted=(), **kwargs):
        """`(result, figures)`: the call, with {"cpu_seconds", "peak_bytes"} read from the kernel by the parent
        (see Sandbox.measure; `counted` is accepted and unused: the kernel counts the whole process)."""
        sent = [arg._handle if isinstance(arg, LearnerObject) else arg for arg in args]
        call = Call(self, args, kwargs)
        self._session.calls.append(call)
        try:
            result, figures = self._session.sandbox.measure(self.name, sent, kwargs, self.target)
        except LearnerError as error:
            error.call = self.describe(*args, **kwargs)
            raise
        call.result = result
        return result, figures

    def describe(self, *args, **kwargs):
        """The call as text, with the parameter names of the kata's API."""
        named = dict(zip(self.params, args)) if len(self.params) >= len(args) else {
            f"arg{i}": arg for i, arg in enumerate(args)}
        return self._session.call_text(self.name, **named, **kwargs)

    def _run(self, args, kwargs, return_args):
        from checker.sandbox.wire import Handle  # imports NumPy: not before the child is on its way

        sent = [arg._handle if isinstance(arg, LearnerObject) else arg for arg in args]
        call = Call(self, args, kwargs)
        self._session.calls.append(call)
        try:
            reply = self._session.sandbox.call(self.name, sent, kwargs, self.target, return_args)
        except LearnerError as error:
            error.call = self.describe(*args, **kwargs)
            raise
        result = reply[0] if return_args else reply
        call.result = result
        if result is None and self.target is None and self.params:
            raise self._session.failure(f"{self.describe(*args, **kwargs)} returned None: the function ends without returning "
                          "its result (a missing `return`?)")
        if isinstance(result, Handle):
            call.made = result.id
            result = LearnerObject(self._session, result)
        elif _has_nonfinite(result):
            self._session.nonfinite_calls.append((self.describe(*args, **kwargs),
                                                  (self.name, sent, kwargs, self.target)))
        return (result, reply[1]) if return_args else result


def _has_nonfinite(result):
    import numpy as np  # NumPy loads while the learner's process starts: `kata check` imports this module first

    parts = result if isinstance(result, tuple) else (result,)
    return any(isinstance(p, np.ndarray) and p.dtype.kind == "f" and not np.isfinite(p).all() for p in parts)

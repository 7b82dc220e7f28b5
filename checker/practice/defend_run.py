"""Running what `kata defend` asks about, in the sandbox: the learner's file, its mutants and its probes, on the
calls a kata's defend.yaml names; and the cost figures, read from the kernel as the checks read them.

A call is a script of steps (make a cache, prefill, then the asked decode step); the answer is the last step's
result, or the part of it `pick` names. Values are built here from the YAML (seeded, small, rounded) and written
back as JSON values by `call_json`, so a tool can run the same call again. Every run is candidate code: a child
of `Sandbox` with the usual walls and limits, one child per mutated file, fed only the bytes held here.
"""

import json
from dataclasses import dataclass, field

import numpy as np

from checker.practice.defend_probes import PROBE_MARK
from checker.sandbox import LearnerError, Limits, Sandbox, SandboxError

PROBE_CHARS = 4096  # a probe's report is a shape and 8 numbers: anything longer is not one, and is not parsed
MUTANT_SECONDS = 2.0  # a call of a mutant that loops is stopped, and asked as "never returns"


@dataclass
class Step:
    call: str  # a function of the learner's module (or a class, to make an object)
    args: list
    kwargs: dict = field(default_factory=dict)
    name: str | None = None  # the object it makes, for later steps ({object: name})
    target: str | None = None  # the object whose method it calls (`cache.append`), else a module function
    raw: dict = field(default_factory=dict)  # the step as the YAML writes it


@dataclass
class Call:
    """One contract input of a defend.yaml: its steps, the part of the answer asked about, how it is said."""

    id: str
    steps: list
    say: str
    pick: tuple = ()
    edge: bool = False

    @property
    def function(self):
        return self.steps[-1].call


@dataclass
class Outcome:
    """What one call gave: a value (the picked part of the result), or an error (its type), or a time-out."""

    value: object = None
    error: str | None = None  # "ValueError", "timeout"
    message: str = ""

    @property
    def is_error(self):
        return self.error is not None


class Handle:
    """An object made by an earlier step (`{object: cache}`), resolved to the child's handle at run time."""

    def __init__(self, name):
        self.name = name


# --- values from the YAML --------------------------------------------------------------------------

def value(spec, named):
    """A value a defend.yaml writes: numbers, nested lists (float64 arrays; "-inf", "inf", "nan" allowed),
    {random: shape, seed}, {bool: ...}, {int: ...}, {list: ...}, {logprobs: probabilities}, {value: name},
    {object: name}."""
    if isinstance(spec, str):
        return float(spec)
    if isinstance(spec, list):
        return np.array(_floats(spec), dtype=np.float64)
    if not isinstance(spec, dict):
        return spec
    (key, body), = spec.items() if len(spec) == 1 else [(k, v) for k, v in spec.items() if k != "seed"]
    if key == "random":
        rng = np.random.default_rng(spec.get("seed", 0))
        return np.round(rng.standard_normal(tuple(body)), 2)
    if key == "bool":
        return np.array(body, dtype=bool)
    if key == "int":
        return np.array(body, dtype=np.int64)
    if key == "list":
        return list(body)
    if key == "logprobs":
        with np.errstate(divide="ignore"):
            return np.log(np.array(body, dtype=np.float64))
    if key == "value":
        return named[body]
    if key == "object":
        return Handle(body)
    raise ValueError(f"unknown value {spec!r}")


def _floats(items):
    return [_floats(item) if isinstance(item, list) else float(item) for item in items]


def calls_of(spec):
    """The Calls of a defend.yaml's `calls`, their values built (and their YAML kept, for `call_json`)."""
    raw_named = spec.get("values") or {}
    named = {name: value(body, {}) for name, body in raw_named.items()}
    found = []
    for entry in spec.get("calls") or []:
        raw_steps = entry.get("steps") or [{"call": entry["call"], "args": entry.get("args", []),
                                            "kwargs": entry.get("kwargs", {})}]
        steps = [Step(step["call"], [value(arg, named) for arg in step.get("args", [])],
                      {key: value(arg, named) for key, arg in (step.get("kwargs") or {}).items()}, step.get("as"),
                      step.get("self"), _resolved(step, raw_named))
                 for step in raw_steps]
        found.append(Call(entry["id"], steps, entry["say"], tuple(entry.get("pick", ())), bool(entry.get("edge"))))
    return found


def _resolved(step, raw_named):
    """A step as the YAML writes it, its `{value: name}`s replaced by what they name."""
    def resolve(spec):
        if isinstance(spec, dict) and set(spec) == {"value"}:
            return raw_named[spec["value"]]
        return spec

    return {"call": step["call"], "args": [resolve(a) for a in step.get("args", [])],
            "kwargs": {k: resolve(v) for k, v in (step.get("kwargs") or {}).items()},
            **({"as": step["as"]} if step.get("as") else {}), **({"self": step["self"]} if step.get("self") else {})}


def call_json(call):
    """The call as JSON values, as the YAML writes them: numbers; nested lists of float64 ("-inf", "inf", "nan"
    as strings); {"random": shape, "seed": s} for np.round(np.random.default_rng(s).standard_normal(shape), 2);
    {"bool": ...}, {"int": ...}, {"list": ...}, {"logprobs": probabilities} (their log), {"object": name} (made
    by an earlier step's "as"); "self": the object whose method a step calls; "pick": the indices into the last
    step's result that the question asks about."""
    return {"function": call.function, "steps": [step.raw for step in call.steps], "pick": list(call.pick)}


# --- running ---------------------------------------------------------------------------------------

def open_box(path, source, seconds=None):
    """A child for `source` (the learner's bytes, or a mutant's), its module loaded; LearnerError or
    SandboxError when it cannot load."""
    box = Sandbox(path, Limits(seconds=seconds) if seconds else Limits(), source=source)
    try:
        box.load([])
    except BaseException:
        box.close()
        raise
    return box


def run_call(box, call, measure=False):
    """The call's steps in `box` (a Sandbox of its own: cost figures); (its picked result, the kernel's figures
    or None)."""
    made, figures, result = {}, None, None
    for number, step in enumerate(call.steps):
        args = [made[a.name] if isinstance(a, Handle) else a for a in step.args]
        kwargs = {k: made[v.name] if isinstance(v, Handle) else v for k, v in step.kwargs.items()}
        target = made[step.target] if step.target else None
        if measure and number == len(call.steps) - 1:
            result, figures = box.measure(step.call, args, kwargs, target)
        else:
            result = box.call(step.call, args, kwargs, target)
        if step.name:
            made[step.name] = result
    return pick(result, call.pick), figures


def pick(result, path):
    for index in path:
        result = result[index]
    return result


def outcome(module, call):
    """What the call gives in a host's module, an error or a time-out included (a time-out ends the child)."""
    from checker.sandbox import Timeout

    try:
        return Outcome(pick(module.run(call), call.pick))
    except LearnerError as error:
        return Outcome(error=error.type, message=str(error))
    except Timeout:
        return Outcome(error="timeout", message="never returns")
    except SandboxError as error:
        return Outcome(error="died", message=str(error))


def outcomes(host, number, calls):
    """Each call's Outcome for the host's file `number` (the learner's, a mutant's), all in one request; when the
    child cannot answer them all (a call loops or kills it), again one call at a time, each with a time limit of
    its own (the next starts another child). None when the file does not load."""
    from checker.practice.defend_host import Module

    try:
        answers = Module(host, number).answers([(call, 0) for call in calls])
        return [Outcome(pick(value, call.pick)) if kind == "ok" else Outcome(error=str(value)[:100])
                for (kind, value), call in zip(answers, calls)]
    except LearnerError:
        return None
    except SandboxError:
        pass
    found = []
    for call in calls:
        try:
            module = Module(host, number)
        except (LearnerError, SandboxError):
            return None if not found else found + [Outcome(error="died")] * (len(calls) - len(found))
        found.append(outcome(module, call))
    return found


def traces(host, number, probes, calls):
    """{(probe line, call id): {"shape", "kind", "size", "values"}} for each probe on each call of the host's
    instrumented file `number`, in one request: the probe set to fire at its line in the asked step, its report
    read back from the SystemExit it raised."""
    from checker.practice.defend_host import Module

    runs = [(probe, call) for probe in probes for call in calls]
    try:
        answers = Module(host, number).answers([(call, probe.line) for probe, call in runs])
    except (LearnerError, SandboxError):
        return {}
    found = {}
    for (probe, call), (kind, value) in zip(runs, answers):
        report = _probe_report(value) if kind == "exit" else None
        if report is not None:
            found[(probe.line, call.id)] = report
    return found


def _probe_report(text):
    """The report a probe raised (what its SystemExit carried), read strictly, or None."""
    if not isinstance(text, str) or not text.startswith(PROBE_MARK) or len(text) > PROBE_CHARS:
        return None
    try:
        report = json.loads(text[len(PROBE_MARK):])
        shape = tuple(int(n) for n in report["shape"])
        values = [float(v) for v in report["values"]][:8]
        return {"shape": shape, "kind": str(report["kind"])[:1], "size": int(report["size"]), "values": values}
    except (ValueError, TypeError, KeyError, AttributeError, MemoryError, RecursionError):
        return None


def measured(path, source, call):
    """The kernel's figures for the call's last step, in a fresh child (its peak since hello is the call's own)."""
    box = open_box(path, source)
    try:
        _, figures = run_call(box, call, measure=True)
        return figures
    finally:
        box.close()


def input_bytes(call):
    """The bytes of the arrays the measured (last) step hands in: decoded in the child, so in its peak."""
    step = call.steps[-1]
    return sum(a.nbytes for a in [*step.args, *step.kwargs.values()] if isinstance(a, np.ndarray))


# --- comparing -------------------------------------------------------------------------------------

def same(a, b):
    """Two outcomes agree: the same error type, or values equal to float tolerance (NaN where NaN)."""
    if a.is_error or b.is_error:
        return a.error == b.error
    return _same_value(a.value, b.value)


def _same_value(x, y):
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        return len(x) == len(y) and all(_same_value(p, q) for p, q in zip(x, y))
    try:
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-4, atol=1e-6, equal_nan=True))


def telling_row(mine, theirs):
    """The index of the first row (the leading axes of a result of 2 or more dims) where two outcomes differ,
    or None: the part of a large result a question shows."""
    a = mine.value if not mine.is_error else None
    if not isinstance(a, np.ndarray) or a.ndim < 2:
        return None
    b = theirs.value if not theirs.is_error else None
    rows = np.ndindex(*a.shape[:-1])
    for index in rows:
        if b is None or not isinstance(b, np.ndarray) or b.shape != a.shape or not _same_value(a[index], b[index]):
            return index
    return tuple(0 for _ in a.shape[:-1])

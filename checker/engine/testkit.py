"""What hidden tests are written with: bug markers, buggy variants, and comparisons that explain.

A hidden test is a function `test_name(kata, ref, rng)`: `kata` is the learner's module (each call
runs in the sandbox), `ref` the reference solution (runs here), `rng` a seeded NumPy generator.
It raises `Failure` with a message that says the call, what came back, what was expected and,
when it can tell, which catalogued bug that points to.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from checker.engine.crashes import full_transpose_error  # noqa: F401 - the tests import it from here
from checker.engine.compare import (COARSEST_REQUIRED, MAX_SLACK, _TOLERANCE, close, first_difference,  # noqa: F401
                                    numbers_apart, scale_between, tolerance)
from checker.engine.difference import describe_difference  # noqa: F401 - the hidden tests import it from here
from checker.engine.evidence import symptom_only


class Failure(Exception):
    """A check failed. `bug` is the catalogued id it points to, or None for a bug nobody catalogued."""

    def __init__(self, message, bug=None, exact=False, nonfinite=False, picture=None, details=None, confirm=None):
        super().__init__(message)
        self.message = message
        self.bug = bug
        # `confirm(kata) -> bool`: inputs chosen to tell `bug` apart, run by the runner on the learner's code; the
        # name stands only if they agree (a name is a hypothesis: one input that happens to agree is no evidence)
        self.confirm = confirm
        self.exact = exact  # the learner's output equals the buggy variant's
        self.nonfinite = nonfinite  # the output holds NaN or inf where it must not: trace where it came from
        self.picture = picture  # a WeightGrid worth drawing
        self.details = details  # data for hints and graders, never shown in a learner's JSON


@dataclass
class WeightGrid:
    """A small table of attention weights worth drawing next to the right one: one row per query.

    `allowed` (bool, same shape) marks the keys each query may see; None when nothing is masked.
    """

    got: np.ndarray
    want: np.ndarray
    allowed: np.ndarray | None = None
    title: str = "weights"
    first_row: int = 0  # the position of row 0 (rows label q{first_row}, ...: a chunk after a prefill)


def bug(bug_id):
    """Mark a test with the bug class it is built to catch."""

    def mark(test):
        test.bug = bug_id
        return test

    return mark


def weight(points):
    """Mark a test as worth `points` in a grade's partial credit (a test without the mark is worth 1): an edge
    case or a cost check that tells a strong answer from a passable one can weigh more."""

    def mark(test):
        test.weight = points
        return test

    return mark


def measured(test):
    """Mark a test whose figures (`measuring`) include the peak memory: the peak since the learner's process
    started never falls, so the test runs first, in a process that has run nothing else."""
    test.measured = True
    return test


def caps(points):
    """Mark a test as the kata's point: in a grade, a file that does not pass it scores at most `points` of 100,
    whatever else passes (kata 08's memory: flash attention that builds the whole table is plain attention)."""

    def mark(test):
        test.cap = points
        return test

    return mark


def variant(bug_id, of=None):
    """Mark a function as what code carrying `bug_id` computes, to recognise it by its output.

    `of` names what the variant stands in for ("mask", "weights", "split", ...) when one module holds
    variants of several functions; `variants_in(namespace, of=...)` then picks them out. This is the one
    way to register a variant: no hand-kept list, no slice of the namespace.
    """

    def mark(function):
        function.variant_of = bug_id
        function.variant_for = of
        return function

    return mark


def _is_variant(value):
    return callable(value) and hasattr(value, "variant_of")


def variants_in(namespace, of=None):
    """The buggy variants of a module's namespace, in the order they are written: functions marked with
    `@variant`, and those a module builds in a loop and keeps in a list or tuple. With `of`, only the
    variants of that function (see `variant`)."""
    found = []
    for value in namespace.values():
        members = value if isinstance(value, (list, tuple)) else (value,)
        found += [f for f in members if _is_variant(f) and f not in found]
    return found if of is None else [f for f in found if getattr(f, "variant_for", None) == of]


# --- describing values --------------------------------------------------------------------------

def show(value, digits=3):
    """A short, readable form of an argument or a result."""
    if isinstance(value, np.ndarray):
        if value.size <= 12:
            rounded = np.round(value.astype(np.float64), digits) if value.dtype.kind == "f" else value
            return np.array2string(rounded, separator=", ", suppress_small=True,  # unpadded: `[0.124, 0, 0.37]`,
                                   formatter={"float_kind": _number}).replace("\n", "")  # never `0.37 ]`
        return f"array{value.shape} {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(x):
    """One float of a shown array, as short as it reads (`0.37`, `0`, `-1.5`, `nan`): NumPy's padding to a common
    width put spaces inside the brackets (`[0.37 , 0. ]`), where an 80-column wrap then broke the array."""
    return np.format_float_positional(x + 0.0, trim="-")


SHOWN_VALUES = 6  # an argument with more numbers than this is shown by its shape


def changed(before, after):
    """Where an argument first changed: `at [0, 2]: was 0.31, now -1.2`."""
    index = tuple(int(i) for i in np.argwhere(~close(after, before, 0, 0))[0])
    return f"at {list(index)}: was {before[index]:.4g}, now {after[index]:.4g}"


def call_text(name, **args):
    """`softmax(x (2, 3, 5), axis=0)`: a call, with shapes for arrays and values for tiny ones."""
    parts = []
    for key, value in args.items():
        dtype = "" if not isinstance(value, np.ndarray) or value.dtype == np.float64 else f" {value.dtype}"
        if isinstance(value, np.ndarray) and value.size > SHOWN_VALUES:
            parts.append(f"{key} {value.shape}{dtype}")
        else:
            parts.append(f"{key}={show(value)}{dtype}")
    return f"{name}({', '.join(parts)})"


# --- checking results ---------------------------------------------------------------------------


def expect_precision(got, inputs, call):
    """A float result keeps at least float32 precision, or float16 when every input is float16: computing
    in float32 is honest, turning float64 or float32 inputs into float16 loses the answer's digits."""
    if got.dtype.kind != "f":
        return
    dtypes = [np.asarray(x).dtype for x in inputs]
    floor = 2 if dtypes and all(d == np.float16 for d in dtypes) else 4
    if got.dtype.itemsize < floor:
        given = ", ".join(sorted({str(d) for d in dtypes}))
        raise Failure(f"{call} returned {got.dtype} for {given} input: a result must keep at least float32 "
                      "precision (float16 only for float16 input)")


def as_array(got, call):
    """The learner's result as a numeric array, or a Failure saying what came back instead."""
    try:
        array = np.asarray(got)
    except Exception:  # noqa: BLE001 - ragged lists and the like
        raise Failure(f"{call} returned {show(got)}, not an array") from None
    if array.dtype.kind not in "biuf":
        raise Failure(f"{call} returned {type(got).__name__} of dtype {array.dtype}, not a numeric array")
    return array


def one_array(got, call):
    """The output as an array; a tuple of arrays, such as (output, weights), is named as what it is."""
    if isinstance(got, (tuple, list)) and got and all(isinstance(item, np.ndarray) for item in got):
        shapes = ", ".join(str(item.shape) for item in got)
        raise Failure(f"{call} returned a {type(got).__name__} of {len(got)} arrays ({shapes}), expected one "
                      "array: return the output alone")
    return as_array(got, call)


def expect_shape(got, shape, call, bug=None, why=""):
    if got.shape != tuple(shape):
        reason = f": {why}" if why else ""
        raise Failure(f"{call} returned shape {got.shape}, expected {tuple(shape)}{reason}", bug)


def expect_close(got, want, call, suspects=None, bug=None, why="", inputs=(), axes=None, confirm=None):
    """Fail unless `got` matches `want`; name the buggy variant whose output `got` equals, if any,
    else say what the difference looks like (see describe_difference; `axes` names the axes).

    The tolerance follows the lowest precision among the result and the `inputs`. `confirm(bug id)` gives the
    Failure's `confirm` for a matched id (None: the match stands on this input).
    """
    if inputs:
        expect_precision(got, inputs, call)
    rtol, atol = tolerance(got, *inputs)
    if got.shape == want.shape and close(got, want, rtol, atol).all():
        return
    matched = suspects.match(got, want, rtol, atol) if suspects else None
    if got.shape != want.shape:
        detail = f"returned shape {got.shape}, expected {want.shape}"
    elif want.size <= 12:
        detail = f"returned {show(got)}, expected {show(want)}"
    else:
        detail = f"returned wrong values {first_difference(got, want, rtol, atol)}"
    nonfinite = got.shape == want.shape and bool((~np.isfinite(got) & np.isfinite(want)).any())
    if matched:
        bug_id, reason = matched
        raise Failure(f"{call} {detail}: {reason}", bug_id, exact=True, nonfinite=nonfinite,
                      confirm=confirm(bug_id) if confirm else None)
    looks = describe_difference(got, want, rtol, atol, axes) if got.shape == want.shape else ""
    reasons = [text for text in (looks, why) if text]
    raise Failure(f"{call} {detail}" + "".join(f": {text}" for text in reasons), bug, nonfinite=nonfinite)


class Suspects:
    """The outputs of known buggy variants on one input, computed only when needed.

    With `up_to_scale`, a variant also matches when the learner's output is a positive multiple of
    it: a scale bug then hides no other bug (kata 01's scale is diagnosed by its own test).
    """

    def __init__(self, variants, *args, up_to_scale=False, rivals=(), **kwargs):
        """`rivals`: functions of the same arguments computing what mistakes outside the catalogue output (no
        mask at all, say): where the learner's output equals a rival's too, the input does not tell them apart."""
        self.variants, self.args, self.kwargs = variants, args, kwargs
        self.up_to_scale, self.rivals = up_to_scale, rivals

    def outputs(self):
        key = _input_key((self.args, self.kwargs))
        for variant in self.variants:
            cached = _OUTPUTS.get((variant, key)) if key is not None else None
            if cached is None:
                try:
                    with np.errstate(all="ignore"):
                        cached = np.asarray(variant(*self.args, **self.kwargs))
                except Exception:  # noqa: BLE001 - this variant crashes on this input: it cannot be the match
                    cached = _CRASHED
                if key is not None:
                    cached.flags.writeable = False if cached is not _CRASHED else True
                    _remember((variant, key), cached)
            if cached is not _CRASHED:
                yield variant, cached

    def match(self, got, want, rtol, atol):
        """(bug id, why) of the one bug whose output equals `got` and differs from the right answer.

        None when no bug matches, or when variants of different bugs all do (an all-NaN output, say):
        an ambiguous match names nothing and leaves the diagnosis to the tests built for each bug.
        """
        if symptom_only(got, want):
            return None
        for rival in self.rivals:
            with np.errstate(all="ignore"):
                output = np.asarray(rival(*self.args, **self.kwargs))
            if output.shape == got.shape and close(got, output, rtol, atol).all():
                return None  # an uncatalogued mistake explains this output as well
        found = {}
        for variant, output in self.outputs():
            if output.shape != got.shape:
                continue
            if not (close(got, output, rtol, atol).all() or (self.up_to_scale and scale_between(got, output))):
                continue  # first: most variants are not what the learner's code did
            if output.shape == want.shape and close(output, want, rtol, atol).all():
                continue  # this input does not show this bug
            found.setdefault(variant.variant_of, " ".join((variant.__doc__ or variant.variant_of).split()))
        return next(iter(found.items())) if len(found) == 1 else None


# Variants are the checker's own deterministic code, and every file of a kata meets the same seeded inputs:
# their outputs are kept, by the inputs' exact bytes, for the next failing file (a self-check, a grade batch).
_OUTPUTS = {}
_OUTPUTS_KEPT = 20_000
_CRASHED = np.empty(0)


def _remember(key, output):
    if len(_OUTPUTS) >= _OUTPUTS_KEPT:
        _OUTPUTS.pop(next(iter(_OUTPUTS)))  # the oldest
    _OUTPUTS[key] = output


def _input_key(value):
    """A hashable key for exactly these inputs (arrays by dtype, shape and a digest of their bytes), or None
    when they hold anything else (a random generator, an object other than a dataclass of such values): those outputs are not kept."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value).__name__, value)
    if isinstance(value, np.ndarray) and not value.dtype.hasobject:
        import hashlib

        data = np.ascontiguousarray(value)
        return ("a", value.dtype.str, value.shape, hashlib.blake2b(data.view(np.uint8).reshape(-1), digest_size=16).digest())
    if isinstance(value, (tuple, list)):
        keys = tuple(_input_key(item) for item in value)
        return None if None in keys else (type(value).__name__, keys)
    if isinstance(value, dict):
        keys = tuple((name, _input_key(item)) for name, item in sorted(value.items()))
        return None if any(key is None for _, key in keys) else ("d", keys)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a plan of calls (kata 05's Plan)
        fields = _input_key({field.name: getattr(value, field.name) for field in dataclasses.fields(value)})
        return None if fields is None else (type(value), fields)
    return None


# --- shared checks: a float result, a pair, arguments left alone -----------------------------------


def expect_float(got, call):
    """Every kata's results are floating point, whatever the input dtype."""
    if got.dtype.kind != "f":
        shown = f" ({show(got)})" if got.size <= SHOWN_VALUES else ""
        raise Failure(f"{call} returned dtype {got.dtype}{shown}, expected floating point")


def as_pair(got, call, names=("out", "weights")):
    """A result that must be a pair of arrays, such as (out, weights) or (k_all, v_all)."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Failure(f"{call} returned {show(got)}, expected the pair ({', '.join(names)})")
    return as_array(got[0], call), as_array(got[1], call)


def expect_unchanged(call, named_args, after, bug=None, advice="work on new arrays, never the caller's"):
    """Fail if a call changed an argument. `named_args` maps each name to the value passed (a copy was sent),
    `after` holds the arguments as the call left them, in the same order."""
    for (name, before), now in zip(named_args.items(), after):
        if not isinstance(before, np.ndarray):
            continue
        now = np.asarray(now)
        if now.shape == before.shape and close(now, before, 0, 0).all() and now.dtype == before.dtype:
            continue
        where = f" ({changed(before, now)})" if now.shape == before.shape else ""
        raise Failure(f"{call} changed its argument {name}{where}: {advice}", bug, exact=bug is not None)


# --- naming k.T on a batch from the error it raises ------------------------------------------------

def full_transpose_failure(call, error, k_shape, keys="k"):
    """The Failure naming batch-transpose for a learner's error recognised by `full_transpose_error`."""
    return Failure(f"{call} raised {error}: {keys} has shape {tuple(k_shape)}, and {keys}.T reverses every axis "
                   f"({tuple(k_shape)[::-1]}), not just the last two; use np.swapaxes({keys}, -1, -2) (or "
                   f"{keys}.transpose(..., -1, -2)) for the keys' transpose", "batch-transpose", exact=True)

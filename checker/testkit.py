"""What hidden tests are written with: bug markers, buggy variants, and comparisons that explain.

A hidden test is a function `test_name(kata, ref, rng)`: `kata` is the learner's module (each call
runs in the sandbox), `ref` the reference solution (runs here), `rng` a seeded NumPy generator.
It raises `Failure` with a message that says the call, what came back, what was expected and,
when it can tell, which catalogued bug that points to.
"""

from dataclasses import dataclass

import numpy as np


class Failure(Exception):
    """A check failed. `bug` is the catalogued id it points to, or None for a bug nobody catalogued."""

    def __init__(self, message, bug=None, exact=False, nonfinite=False, picture=None, details=None):
        super().__init__(message)
        self.message = message
        self.bug = bug
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


def bug(bug_id):
    """Mark a test with the bug class it is built to catch."""

    def mark(test):
        test.bug = bug_id
        return test

    return mark


def variant(bug_id):
    """Mark a function as what code carrying `bug_id` computes, to recognise it by its output."""

    def mark(function):
        function.variant_of = bug_id
        return function

    return mark


def variants_in(namespace):
    """The buggy variants defined in a hidden module's namespace, in the order they are written."""
    return [f for f in namespace.values() if callable(f) and hasattr(f, "variant_of")]


# --- describing values --------------------------------------------------------------------------

def show(value, digits=3):
    """A short, readable form of an argument or a result."""
    if isinstance(value, np.ndarray):
        if value.size <= 12:
            rounded = np.round(value.astype(np.float64), digits) if value.dtype.kind == "f" else value
            return np.array2string(rounded,
                                   separator=", ", suppress_small=True).replace("\n", "")
        return f"array{value.shape} {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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

_TOLERANCE = {8: (1e-6, 1e-9), 4: (1e-4, 1e-6), 2: (1e-2, 1e-3)}  # itemsize -> (rtol, atol)


def tolerance(*arrays):
    """Tolerances that accept every honest order of floating-point operations at the lowest precision in play.

    Rounding at that precision grows with the size of the numbers it meets: scores near 1e4 keep about
    three digits in float32, and their softmax inherits the error. So the tolerance grows with the
    largest input too, up to MAX_SLACK, far below what any bug changes (a leak, a NaN, 0 against 1).
    """
    floats = [a for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    if not floats:
        return _TOLERANCE[8]
    lowest = min((a.dtype for a in floats), key=lambda dtype: dtype.itemsize)
    rtol, atol = _TOLERANCE.get(lowest.itemsize, _TOLERANCE[2])
    scale = max(float(np.abs(a[np.isfinite(a)]).max(initial=0)) for a in floats)
    slack = min(8 * float(np.finfo(lowest).eps) * scale, MAX_SLACK)
    return max(rtol, slack), max(atol, slack)


MAX_SLACK = 0.02


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


def close(got, want, rtol, atol):
    """Elementwise closeness; NaN matches NaN and an infinity matches the same infinity."""
    got64, want64 = np.asarray(got, np.float64), np.asarray(want, np.float64)
    with np.errstate(invalid="ignore"):
        return np.isclose(got64, want64, rtol=rtol, atol=atol, equal_nan=True) | (got64 == want64)


def first_difference(got, want, rtol, atol):
    """Where `got` and `want` first differ, as text: `at [1, 2]: got 0.41, expected 0.29`."""
    bad = ~close(got, want, rtol, atol)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = f"at {list(index)}" if index else "value"
    return f"{where}: got {got[index]:.4g}, expected {want[index]:.4g}"


def expect_close(got, want, call, suspects=None, bug=None, why="", inputs=()):
    """Fail unless `got` matches `want`; name the buggy variant whose output `got` equals, if any.

    The tolerance follows the lowest precision among the result and the `inputs`.
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
        raise Failure(f"{call} {detail}: {reason}", bug_id, exact=True, nonfinite=nonfinite)
    raise Failure(f"{call} {detail}" + (f": {why}" if why else ""), bug, nonfinite=nonfinite)


def scale_between(got, reference):
    """c if got == c * reference for one positive number c (to the float64 tolerance), else None."""
    got, reference = np.asarray(got, np.float64), np.asarray(reference, np.float64)
    if got.shape != reference.shape or not (np.isfinite(got).all() and np.isfinite(reference).all()):
        return None
    norm = float(np.sum(reference * reference))
    if norm == 0:
        return None
    c = float(np.sum(got * reference)) / norm
    return c if c > 0 and close(got, c * reference, 1e-6, 1e-9).all() else None


class Suspects:
    """The outputs of known buggy variants on one input, computed only when needed.

    With `up_to_scale`, a variant also matches when the learner's output is a positive multiple of
    it: a scale bug then hides no other bug (kata 01's scale is diagnosed by its own test).
    """

    def __init__(self, variants, *args, up_to_scale=False, **kwargs):
        self.variants, self.args, self.kwargs = variants, args, kwargs
        self.up_to_scale = up_to_scale

    def outputs(self):
        for variant in self.variants:
            try:
                with np.errstate(all="ignore"):
                    yield variant, np.asarray(variant(*self.args, **self.kwargs))
            except Exception:  # noqa: BLE001 - this variant crashes on this input: it cannot be the match
                continue

    def match(self, got, want, rtol, atol):
        """(bug id, why) of the one bug whose output equals `got` and differs from the right answer.

        None when no bug matches, or when variants of different bugs all do (an all-NaN output, say):
        an ambiguous match names nothing and leaves the diagnosis to the tests built for each bug.
        """
        found = {}
        for variant, output in self.outputs():
            if output.shape != got.shape:
                continue
            if output.shape == want.shape and close(output, want, rtol, atol).all():
                continue  # this input does not show this bug
            if close(got, output, rtol, atol).all() or (self.up_to_scale and scale_between(got, output)):
                found.setdefault(variant.variant_of, " ".join((variant.__doc__ or variant.variant_of).split()))
        return next(iter(found.items())) if len(found) == 1 else None

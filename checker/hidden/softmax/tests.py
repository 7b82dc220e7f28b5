"""Hidden tests for kata 02: softmax(x, axis=-1), stable for any finite input.

Each stability bug shows on its own input: scores near 1e4 (no shift), slices far below the others
(a global maximum), slices of only negative numbers (a maximum floored at 0), square inputs (a
missing keepdims broadcasts without error).
"""

import numpy as np

from checker.sandbox import LearnerError
from checker.engine.evidence import python_overflow
from checker.engine.kept import expect_kept
from checker.engine.testkit import weight
from checker.hidden.softmax import variants
from checker.engine.testkit import Failure, Suspects, as_array, bug, call_text, close, expect_close, expect_float, \
    expect_unchanged, show, tolerance, variants_in

API = {"softmax": ("x", "axis")}


VARIANTS = variants_in(vars(variants), of="softmax")


def _run(kata, ref, x, *axis):
    """The learner's weights, the right ones (from float64), and the call as text."""
    call = call_text("softmax", x=np.asarray(x), **({"axis": axis[0]} if axis else {}))
    got = as_array(kata.softmax(x, *axis), call)
    return got, ref.softmax(np.asarray(x, np.float64), *axis), call


def _compare(got, want, call, x, *axis, why="", decided=()):
    """Fail unless got == want. `decided`: ids this test has already ruled on with inputs of its own that tell
    them apart (one input agreeing with such a variant is no evidence)."""
    if np.asarray(x).dtype.kind in "iub" and got.dtype.kind in "iub" and got.shape == want.shape:
        raise Failure(f"{call} returned {got.dtype} weights {show(got)}, expected {show(want)}: the weights were "
                      "truncated to integers (an integer array written into, or a cast back to the input's "
                      "dtype); the result is floating point", "integer-truncation", exact=True)
    x64 = np.asarray(x, np.float64)
    suspects = [variant for variant in VARIANTS if variant.variant_of not in decided]
    expect_close(got, want, call, Suspects(suspects, x64, *axis), why=why, inputs=(np.asarray(x),))


def _right(kata, ref, x):
    """Does the learner's softmax get x right? (A control for diagnosing another input.)"""
    got, want, _ = _run(kata, ref, x)
    return got.shape == want.shape and close(got, want, *tolerance(got)).all()


# --- shape first ---------------------------------------------------------------------------------

def test_shape_and_dtype(kata, ref, rng):
    for shape in ((3, 5), (1, 4)):  # a size-1 axis stays: np.squeeze would drop it
        x = rng.normal(size=shape)
        got, want, call = _run(kata, ref, x)
        if got.shape != want.shape:
            raise Failure(f"{call} returned shape {got.shape}, expected {want.shape}: softmax keeps the shape, "
                          "size-1 axes included")
        expect_float(got, call)


def test_values(kata, ref, rng):
    x = rng.normal(size=(2, 3, 5)) * 3
    got, want, call = _run(kata, ref, x)
    _compare(got, want, call, x)
    x = rng.normal(size=(2, 1, 5))  # axis 1 has one element: each slice is that element alone, weight 1
    got, want, call = _run(kata, ref, x, 1)
    _compare(got, want, call, x, 1, why="a slice of one number gives it weight 1; a size-1 axis stays")


def test_one_dimensional(kata, ref, rng):
    x = rng.normal(size=7)
    got, want, call = _run(kata, ref, x)
    _compare(got, want, call, x)


def test_worked_example(kata, ref):
    x = [4, 0, 2]  # row A of the A/B/C example
    got, want, call = _run(kata, ref, x)
    _compare(got, want, call, x)


# --- one bug class a test -------------------------------------------------------------------------

@bug("no-max-shift")
@weight(2)
def test_large_scores(kata, ref, rng):
    x = 1e4 + rng.normal(size=(3, 4))  # every slice near 1e4: exp overflows, shifting does not
    try:
        got, want, call = _run(kata, ref, x)
    except LearnerError as error:  # math.exp(1e4) raises where np.exp gives inf: the same bug, on a Python float
        if python_overflow(error) and _right(kata, ref, x - 1e4):
            raise Failure(f"{error.call} raised {error}, and is right on the same numbers less 1e4: exp(1e4) "
                          "overflows; subtract each slice's maximum before exp", "no-max-shift", exact=True) from None
        raise
    if got.shape == want.shape and not np.isfinite(got).all() and _right(kata, ref, x - 1e4):
        raise Failure(f"{call} returned {show(got[0])} in row 0, expected {show(want[0])}: exp(1e4) "
                      "overflows to inf and inf/inf is NaN", "no-max-shift", exact=True, nonfinite=True)
    _compare(got, want, call, x)


@bug("max-floor-zero")
def test_all_negative(kata, ref, rng):
    x = -1000 + rng.normal(size=(3, 4))  # every slice near -1000: exp underflows to 0 unless shifted
    got, want, call = _run(kata, ref, x)
    if got.shape == want.shape and not close(got, want, *tolerance(got)).all():
        if _right(kata, ref, 1e4 + x + 1000):  # large positive slices work, so some shift is there
            raise Failure(f"{call} returned {show(got[0])} in row 0, expected {show(want[0])}: slices of only "
                          "negative numbers were not shifted (a maximum floored at 0)", "max-floor-zero",
                          exact=True)
        if not np.isfinite(got).all() or not got.any():
            raise Failure(f"{call} returned {show(got[0])} in row 0, expected {show(want[0])}: exp(-1000) "
                          "underflows to 0, and the slice cannot be normalised", "no-max-shift", exact=True,
                          nonfinite=not np.isfinite(got).all())
    _compare(got, want, call, x)


FAR_APART = ((900.0, 5.0, 5.0), (5.0, 900.0, 5.0), (5.0, 5.0, 900.0))  # the top slice first, in the middle, last


@bug("global-max")
def test_slices_far_apart(kata, ref, rng):
    # three positive slices, one of them 895 above the other two, the top one in each place in turn: a whole-array
    # maximum loses exactly the two low slices wherever the top one sits, and each low slice is right alone; a
    # mistake about a slice's place (the last one dropped, the first one skipped) does not follow the top slice
    runs = []
    for levels in FAR_APART:
        x = rng.normal(size=(3, 4)) + np.array(levels)[:, None]
        got, want, call = _run(kata, ref, x)
        if got.shape != want.shape:
            _compare(got, want, call, x, decided=("global-max",))
        runs.append((x, got, want, call, close(got, want, *tolerance(got)).all(axis=-1)))
    low = [np.array(levels) < max(levels) for levels in FAR_APART]  # (3,) each: the slices far below the top
    follows = all(np.array_equal(~ok, below) for (_, _, _, _, ok), below in zip(runs, low))
    if follows and all(_right(kata, ref, x[below]) for (x, *_), below in zip(runs, low)):
        x, got, want, call, _ = runs[-1]
        raise Failure(f"{call} returned {show(got[0])} for slice 0, expected {show(want[0])}; with the top slice "
                      "first, in the middle or last, exactly the two slices 895 below it are wrong, and each is right "
                      "alone: they were shifted by the maximum of the whole array", "global-max", exact=True)
    for x, got, want, call, ok in runs:
        _compare(got, want, call, x, decided=("global-max",),
                 why="each slice's weights depend on that slice alone, however far apart the slices are")


@bug("missing-keepdims")
def test_square_input(kata, ref, rng):
    # square slices: a missing keepdims broadcasts without an error, along the last axis or another
    for shape, axis in (((4, 4), -1), ((4, 4), 0), ((3, 3, 3), 1)):
        x = rng.normal(size=shape) * 2
        got, want, call = _run(kata, ref, x, axis)
        _compare(got, want, call, x, axis)


def _sums_along_other_axis(got, axis):
    """The other axis along which `got` sums to 1, if any (what a wrong-axis softmax produces)."""
    for other in range(got.ndim):
        if other != axis % got.ndim and np.allclose(got.sum(axis=other), 1, atol=1e-3):
            return other
    return None


@bug("wrong-axis")
def test_axis_zero(kata, ref, rng):
    x = rng.normal(size=(4, 3, 2))
    got, want, call = _run(kata, ref, x, 0)
    if got.shape == want.shape and not np.allclose(got.sum(axis=0), 1, atol=1e-3):
        other = _sums_along_other_axis(got, 0)
        if other is not None:
            raise Failure(f"{call}: the weights sum to 1 along axis {other}, not along axis 0", "wrong-axis",
                          exact=True)
    _compare(got, want, call, x, 0)


@bug("wrong-axis")
def test_negative_axis(kata, ref, rng):
    x = rng.normal(size=(2, 5, 3))
    got, want, call = _run(kata, ref, x, -2)
    if got.shape == want.shape and not np.allclose(got.sum(axis=-2), 1, atol=1e-3):
        other = _sums_along_other_axis(got, -2)
        if other is not None:
            raise Failure(f"{call}: the weights sum to 1 along axis {other}, not along axis -2 (= 1)",
                          "wrong-axis", exact=True)
    _compare(got, want, call, x, -2)


@bug("global-sum")
def test_slices_sum_to_one(kata, ref, rng):
    x = rng.normal(size=(3, 4))
    got, want, call = _run(kata, ref, x)
    if got.shape == want.shape and np.isclose(got.sum(), 1) and not np.allclose(got.sum(axis=-1), 1):
        raise Failure(f"{call}: the slices sum to {show(got.sum(axis=-1))} and the whole array to 1: "
                      "each slice must sum to 1", "global-sum", exact=True)
    _compare(got, want, call, x)


@bug("nan-on-all-masked")
def test_all_neg_inf_slice(kata, ref):
    x = np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 1.0]])  # row 0: every key masked
    got, want, call = _run(kata, ref, x)
    if got.shape == want.shape and np.isnan(got[0]).any():
        raise Failure(f"{call} returned {show(got[0])} for the all -inf slice, expected {show(want[0])}: "
                      "-inf - (-inf) is NaN", "nan-on-all-masked", exact=True, nonfinite=True)
    _compare(got, want, call, x, why="a slice of only -inf gives weight 0 everywhere")


def test_neg_inf_gets_zero(kata, ref):
    x = np.array([[0.0, -np.inf, 1.0], [-np.inf, 2.0, 2.0]])
    got, want, call = _run(kata, ref, x)
    _compare(got, want, call, x)
    if (got[np.isneginf(x)] != 0).any():
        raise Failure(f"{call} returned {show(got)}: a -inf score must get weight exactly 0")


@bug("hides-nan")
def test_nan_stays_nan(kata, ref):
    x = np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]])
    got, want, call = _run(kata, ref, x)
    if got.shape == want.shape and not np.isnan(got[0, 1]) and _right(kata, ref, np.nan_to_num(x, nan=1.5)):
        raise Failure(f"{call} returned {show(got[0])} for the slice holding NaN, expected NaN there: "
                      "a NaN input must never come back as a number", "hides-nan", exact=True)
    if got.shape == want.shape:
        nan = np.isnan(got[0])
        if not (nan.all() or np.array_equal(nan, np.isnan(x[0]))):
            raise Failure(f"{call} returned {show(got[0])} for the slice holding NaN: keep NaN where it was, or "
                          "across the whole slice, not in some of the other places")
        if close(got[1], want[1], *tolerance(got)).all():
            return  # the NaN slice is NaN where it must be; the rest of it may be NaN or not
    _compare(got, want, call, x, why="a NaN in one slice must not change the others")


@bug("mutates-input")
def test_input_unchanged(kata, rng):
    # a no-copy np.asarray keeps some dtypes only; code that fixes up all -inf slices may write into x
    cases = [rng.normal(size=(3, 4)).astype(dtype) for dtype in (np.float64, np.float32, np.float16)]
    cases.append(np.array([[-np.inf, -np.inf, -np.inf], [0.5, -np.inf, 1.0]]))
    for x in cases:
        _, after = kata.softmax.keeping_args(x.copy())
        expect_unchanged(call_text("softmax", x=x), {"x": x}, after, "mutates-input", advice="work on a new array")


@bug("integer-truncation")
def test_integer_input(kata, ref):
    x = np.array([[1, 2, 3], [0, 0, 0]])
    got, want, call = _run(kata, ref, x)
    _compare(got, want, call, x)  # integer weights are named here
    expect_float(got, call)


def test_float32(kata, ref, rng):
    x = (rng.normal(size=(3, 5)) * 10).astype(np.float32)
    got, want, call = _run(kata, ref, x)
    expect_float(got, call)
    _compare(got, want, call, x)


def test_float16(kata, ref):
    x = np.array([[1.0, 2.0, 3.0], [-60000.0, 0.0, 60000.0]], np.float16)
    got, want, call = _run(kata, ref, x)
    _compare(got, want, call, x)


def test_extreme_magnitudes(kata, ref):
    # SPEC: right for every finite input. Slices of equal numbers near 3e38, 1e17 and -1e20 (float32 holds them
    # too): adding the log-sum-exp to the maximum before the difference rounds log n away there (3e38 + log 2 is
    # 3e38), and every weight comes back 1
    x = np.array([[3e38, 3e38, -3e38], [1e17, 1e17, 1e17], [-1e20, -1e20, -3e20]])
    got, want, call = _run(kata, ref, x)
    if got.shape == want.shape and np.isfinite(got).all() and np.allclose(got, (x == x.max(-1, keepdims=True))):
        raise Failure(f"{call} returned {show(got)}, expected {show(want)}: each slice's largest numbers all got "
                      "weight 1 (the slices sum to more than 1): a log-sum-exp added to numbers this large loses "
                      "log n to rounding; subtract the maximum first, (x - m) - log(sum(exp(x - m)))")
    _compare(got, want, call, x, why="a softmax is right for every finite input, however large")


def test_results_stay_unchanged(kata, rng):
    # a result must not change because of a later call: keep the first, read it again after a second
    for dtype in (np.float64, np.float32):
        x1, x2 = (rng.normal(size=(3, 4)).astype(dtype) for _ in range(2))
        expect_kept(kata.softmax, (x1,), (x2,), call_text("softmax", x=x1), "a second call on another x")


def test_extreme_spread(kata, ref):
    x = np.array([1e4, -1e4, 0.0])
    got, want, call = _run(kata, ref, x)
    _compare(got, want, call, x)

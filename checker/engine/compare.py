"""Comparing a learner's numbers with the expected ones: the tolerance every honest order of operations meets
(never finer than float32), elementwise closeness, and how to say two numbers apart. NumPy only."""

import numpy as np

_TOLERANCE = {8: (1e-6, 1e-9), 4: (1e-4, 1e-6), 2: (1e-2, 1e-3)}  # itemsize -> (rtol, atol)
COARSEST_REQUIRED = 4  # float64 precision is never required: float32 arithmetic anywhere inside is honest


def tolerance(*arrays):
    """Tolerances that accept every honest order of floating-point operations at the lowest precision in play.

    That precision is never finer than float32 (SPEC, "Precision, all katas"): code may project or
    accumulate in float32 and hand back float64, and is right. Rounding grows with the size of the numbers
    it meets: scores near 1e4 keep about three digits in float32, and their softmax inherits the error.
    So the tolerance grows with the largest input too, up to MAX_SLACK, far below what any bug changes
    (a leak, a NaN, 0 against 1).
    """
    floats = [a for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    itemsize = min([a.dtype.itemsize for a in floats] + [COARSEST_REQUIRED])
    rtol, atol = _TOLERANCE.get(itemsize, _TOLERANCE[2])
    eps = float(np.finfo({8: np.float64, 4: np.float32}.get(itemsize, np.float16)).eps)
    scale = max([float(np.abs(a[np.isfinite(a)]).max(initial=0)) for a in floats] + [0.0])
    slack = min(8 * eps * scale, MAX_SLACK)
    return max(rtol, slack), max(atol, slack)


MAX_SLACK = 0.02


def close(got, want, rtol, atol):
    """Elementwise closeness; NaN matches NaN and an infinity matches the same infinity.

    np.isclose(got, want, rtol, atol, equal_nan=True) | (got == want), written out: the checks call it
    hundreds of thousands of times, and np.isclose's own overhead is most of its cost on small arrays."""
    got64, want64 = np.asarray(got, np.float64), np.asarray(want, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        near = np.abs(got64 - want64) <= atol + rtol * np.abs(want64)  # NaN where either is not finite: False
        near &= np.isfinite(got64) & np.isfinite(want64)  # inf - finite: inf <= inf would say True
        return near | (got64 == want64) | (np.isnan(got64) & np.isnan(want64))


def numbers_apart(got, want, digits=4):
    """got and want as text, with as many digits as it takes to tell them apart (never `0.01072` twice)."""
    for places in range(digits, 18):  # `#` keeps trailing zeros: 0.02690 against 0.02693, never 0.0269
        a, b = f"{got:#.{places}g}", f"{want:#.{places}g}"
        if a != b:
            break
    return a, b


def first_difference(got, want, rtol, atol):
    """Where `got` and `want` first differ, as text: `at [1, 2]: got 0.41, expected 0.29`."""
    bad = ~close(got, want, rtol, atol)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = f"at {list(index)}" if index else "value"
    return f"{where}: got %s, expected %s" % numbers_apart(got[index], want[index])


def scale_between(got, reference, rtol=None, atol=None):
    """c if got == c * reference for one positive number c, else None. The tolerance is float32's
    unless given: float64 precision is never required."""
    got, reference = np.asarray(got, np.float64), np.asarray(reference, np.float64)
    if got.shape != reference.shape or not (np.isfinite(got).all() and np.isfinite(reference).all()):
        return None
    norm = float(np.sum(reference * reference))
    if norm == 0:
        return None
    c = float(np.sum(got * reference)) / norm
    if rtol is None:
        rtol, atol = tolerance(got, reference)
    return c if c > 0 and close(got, c * reference, rtol, atol).all() else None

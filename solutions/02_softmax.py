"""Kata 02: a numerically stable softmax.

Softmax turns any slice of scores into weights that are >= 0 and sum to 1, for any finite input.

Trap: done naively, exp() overflows for large scores and underflows to 0/0 for very negative ones;
shifting each slice by its own maximum fixes both without changing the result.
"""

import numpy as np


def softmax(x, axis=-1):
    """Softmax of x along `axis`, stable for any finite input.

    Args:
        x: scores of any shape (NumPy array, integer array or nested list).
        axis: the axis whose slices become weights; negative values count from the end.

    Returns:
        Floating-point array, same shape as x. Along `axis`:
        - every weight is >= 0 and each slice sums to 1, even for |x| of 1e4 and more,
          slices of only negative numbers, and slices far below the others;
        - an entry of -inf gets weight exactly 0, and a slice of only -inf gives all zeros (not NaN);
        - a slice holding NaN stays NaN: a NaN input is never hidden.
        Integers give floats (float64 is always fine; float32 and float16 may stay as they are).
        x itself is left unchanged.

    Example (row A of the A/B/C example: scores [4, 0, 2]):
        >>> softmax([4, 0, 2]).round(3)
        array([0.867, 0.016, 0.117])
    """
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    peak = np.max(x, axis=axis, keepdims=True)  # per slice; NaN stays NaN
    peak = np.where(np.isneginf(peak), 0, peak)  # an all -inf slice: shift by 0, exp gives zeros
    e = np.exp(x - peak)  # largest exponent is 0: no overflow
    total = np.sum(e, axis=axis, keepdims=True)
    # total is 0 only for an all -inf slice, whose weights are all 0; a NaN total stays NaN.
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)

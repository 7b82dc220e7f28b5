"""What code carrying each catalogued bug of kata 02 computes, to recognise it by its output.

Softmax variants take (x, axis) like softmax. Later katas build their attention variants from these
pieces (`stable`, `no_shift`), so a softmax bug keeps its id wherever a softmax runs.
"""

import numpy as np

from checker.engine.testkit import variant


def _normalise(e, axis):
    return e / e.sum(axis=axis, keepdims=True)


def stable(x, axis=-1):
    return _normalise(np.exp(x - x.max(axis=axis, keepdims=True)), axis)


# --- what the catalogued bugs compute ---------------------------------------------------------------

@variant("no-max-shift", of="softmax")
def no_shift(x, axis=-1):
    """exp(x) overflowed to inf, and inf/inf is NaN: subtract each slice's maximum first"""
    return _normalise(np.exp(x), axis)


@variant("global-max", of="softmax")
def _global_max(x, axis=-1):
    """the maximum of the whole array was subtracted, so a slice far below it underflowed to 0/0"""
    return _normalise(np.exp(x - x.max()), axis)


@variant("max-floor-zero", of="softmax")
def _max_floor_zero(x, axis=-1):
    """the maximum was floored at 0, so a slice of only negative numbers underflowed to 0/0"""
    return _normalise(np.exp(x - np.maximum(x.max(axis=axis, keepdims=True), 0)), axis)


@variant("missing-keepdims", of="softmax")
def _max_without_keepdims(x, axis=-1):
    """the maximum lost its axis (no keepdims) and was broadcast along the wrong one"""
    return _normalise(np.exp(x - x.max(axis=axis)), axis)


@variant("missing-keepdims", of="softmax")
def _sum_without_keepdims(x, axis=-1):
    """the sum lost its axis (no keepdims) and divided along the wrong one"""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis)


@variant("missing-keepdims", of="softmax")
def _both_without_keepdims(x, axis=-1):
    """the maximum and the sum lost their axis (no keepdims) and were broadcast along the wrong one"""
    e = np.exp(x - x.max(axis=axis))
    return e / e.sum(axis=axis)


@variant("missing-keepdims", of="softmax")
def _max_put_back_last(x, axis=-1):
    """the maximum lost its axis (no keepdims), and [..., None] put it back as the LAST axis, which is
    the right place only when axis=-1"""
    return _normalise(np.exp(x - x.max(axis=axis)[..., None]), axis)


@variant("missing-keepdims", of="softmax")
def _both_put_back_last(x, axis=-1):
    """the maximum and the sum lost their axis (no keepdims), and [..., None] put it back as the LAST
    axis, which is the right place only when axis=-1"""
    e = np.exp(x - x.max(axis=axis)[..., None])
    return e / e.sum(axis=axis)[..., None]


@variant("wrong-axis", of="softmax")
def _last_axis(x, axis=-1):
    """the slices were taken along the last axis, not along `axis`"""
    return stable(x, -1)


@variant("wrong-axis", of="softmax")
def _first_axis(x, axis=-1):
    """the slices were taken along axis 0, not along `axis`"""
    return stable(x, 0)


@variant("global-sum", of="softmax")
def _global_sum(x, axis=-1):
    """divided by the sum of the whole array, so each slice sums to less than 1"""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum()


@variant("nan-on-all-masked", of="softmax")
def _unguarded(x, axis=-1):
    """a slice of only -inf gave NaN: -inf - (-inf) is NaN"""
    return stable(x, axis)

"""Bug: the maximum is taken without keepdims, so it broadcasts along the wrong axis."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(x, axis=axis)
    peak = np.where(np.isneginf(peak), 0, peak)
    e = np.exp(x - peak)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)

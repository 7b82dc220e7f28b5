"""Bug: always normalises along the last axis, ignoring the `axis` argument."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(x, axis=-1, keepdims=True)
    peak = np.where(np.isneginf(peak), 0, peak)
    e = np.exp(x - peak)
    total = np.sum(e, axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)

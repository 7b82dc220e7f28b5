"""Bug: subtracts the maximum of the whole array instead of each slice's own maximum."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(x)
    if np.isneginf(peak):  # everything is -inf: shift by 0, exp gives zeros
        peak = 0.0
    e = np.exp(x - peak)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)

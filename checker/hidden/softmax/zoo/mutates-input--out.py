"""Bug: np.exp(..., out=x) writes into x, which np.asarray did not copy for a float64 input."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isneginf(peak), 0, peak)
    e = np.exp(x - peak, out=x)  # reuse x's buffer
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)

"""Correct: NaN-aware (nanmax, nansum): a NaN input stays NaN where it was, the rest of its slice is finite."""
import numpy as np

def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    m = np.nanmax(np.where(np.isnan(x), -np.inf, x), axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    s = np.nansum(e, axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s != 0)

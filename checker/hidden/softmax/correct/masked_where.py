"""Correct: -inf handled with np.where on the maximum, normalised with np.divide(where=)."""
import numpy as np


def softmax(x, axis=-1):
    x = np.array(x, dtype=np.result_type(np.asarray(x).dtype, np.float64))  # a fresh float copy
    m = x.max(axis=axis, keepdims=True)
    shift = np.where(m == -np.inf, 0.0, m)
    e = np.exp(x - shift)
    s = e.sum(axis=axis, keepdims=True)
    w = np.full_like(e, np.nan)  # a NaN total leaves NaN
    np.divide(e, s, out=w, where=s > 0)
    w[np.broadcast_to(s == 0, w.shape)] = 0.0  # an all -inf slice
    return w

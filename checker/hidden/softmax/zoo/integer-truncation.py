"""Writes the weights into an array of the input's dtype: integer input gives zeros and ones."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    out = np.empty_like(x)
    shifted = x - x.max(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        shifted = np.where(np.isnan(shifted) & np.isneginf(x), -np.inf, shifted)
        e = np.exp(shifted)
        total = e.sum(axis=axis, keepdims=True)
        out[...] = np.divide(e, total, out=np.zeros(e.shape), where=total != 0)
    return out

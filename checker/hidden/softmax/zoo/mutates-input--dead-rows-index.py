"""Zeroes slices of only -inf by indexing into x, which np.asarray did not copy."""
import numpy as np

def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    dead = np.all(np.isneginf(x), axis=axis, keepdims=True)
    x[np.broadcast_to(dead, x.shape)] = 0.0
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return np.where(dead, 0.0, e / e.sum(axis=axis, keepdims=True))

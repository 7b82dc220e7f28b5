"""Fixes up slices of only -inf in place: the caller's array gets zeros where it had -inf."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    dead = np.isneginf(x).all(axis=axis, keepdims=True)
    if dead.any():
        np.copyto(x, 0.0, where=np.broadcast_to(dead, x.shape))  # writes into the caller's array
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    out = e / e.sum(axis=axis, keepdims=True)
    return np.where(dead, 0.0, out)

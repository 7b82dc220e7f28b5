"""Correct: plain shifted softmax in a fresh array, then all -inf slices set to 0 afterwards."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    axis = axis % x.ndim if x.ndim else 0
    all_masked = np.all(np.isneginf(x), axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):  # -inf - (-inf) = NaN in all -inf slices, fixed below
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        w = e / e.sum(axis=axis, keepdims=True)
    return np.where(all_masked, 0.0, w)

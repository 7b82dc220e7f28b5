"""Correct: a 1-D softmax applied to every slice with np.apply_along_axis."""
import numpy as np


def _softmax_1d(row):
    if np.isnan(row).any():
        return np.full(row.shape, np.nan)
    if row.size == 0 or np.isneginf(row).all():
        return np.zeros(row.shape)
    e = np.exp(row - row.max())
    return e / e.sum()


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        return _softmax_1d(x.reshape(1)).reshape(())
    return np.apply_along_axis(_softmax_1d, axis, x)

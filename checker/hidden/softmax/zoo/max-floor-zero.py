"""Bug: the per-slice maximum is clamped at 0, so slices of only negative numbers underflow to 0."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    # clamp at 0 so an all -inf slice never computes -inf - (-inf)
    peak = np.maximum(np.max(x, axis=axis, keepdims=True), 0)
    e = np.exp(x - peak)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)

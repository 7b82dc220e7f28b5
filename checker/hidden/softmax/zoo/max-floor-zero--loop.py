"""Bug: the running maximum starts at 0, so slices of only negative numbers are never shifted and underflow."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    moved = np.moveaxis(x, axis, -1)
    out = np.empty_like(moved)
    for idx in np.ndindex(moved.shape[:-1]):
        row = moved[idx]
        peak = 0.0
        for v in row:
            if v > peak:
                peak = v
        e = np.exp(row - peak)
        total = e.sum()
        out[idx] = e / total if total != 0 else 0.0
    return np.moveaxis(out, -1, axis)

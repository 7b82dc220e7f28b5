"""A loop over the slices that starts at 1: slice 0 stays all zeros. When slice 0 holds a NaN, the NaN is lost
too, but not because NaN is hidden: slice 0 is wrong whatever it holds, so hides-nan is not named."""
import numpy as np


def softmax(x, axis=-1):
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    rows = x.reshape(-1, x.shape[-1])  # (slices, n)
    out = np.zeros_like(rows)
    for i in range(1, len(rows)) if len(rows) > 1 else range(1):
        if (rows[i] > -np.inf).any() or np.isnan(rows[i]).any():
            e = np.exp(rows[i] - rows[i].max())
            out[i] = e / e.sum()
    return np.moveaxis(out.reshape(x.shape), -1, axis)

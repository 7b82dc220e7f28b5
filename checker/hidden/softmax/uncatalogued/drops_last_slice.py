"""A loop over the slices that stops one short: the last slice stays all zeros (which slice is far from the
others does not matter, so global-max is not this file's name)."""
import numpy as np


def softmax(x, axis=-1):
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    rows = x.reshape(-1, x.shape[-1])  # (slices, n)
    out = np.zeros_like(rows)
    for i in range(max(len(rows) - 1, 1)):
        m = rows[i].max()
        e = np.exp(rows[i] - (m if np.isfinite(m) else 0.0))
        total = e.sum()
        out[i] = e / total if total > 0 else 0.0
    return np.moveaxis(out.reshape(x.shape), -1, axis)

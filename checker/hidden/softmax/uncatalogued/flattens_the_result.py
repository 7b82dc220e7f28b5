"""Right weights, but handed back flattened: the shape is lost."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    shifted = x - x.max(axis=axis, keepdims=True)
    e = np.exp(np.where(np.isneginf(x), -np.inf, shifted))
    total = e.sum(axis=axis, keepdims=True)
    out = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return out.ravel()

"""Bug: works in place on the caller's float array, overwriting x."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isneginf(peak), 0, peak)
    x -= peak  # in place to save memory
    np.exp(x, out=x)
    total = np.sum(x, axis=axis, keepdims=True)
    np.divide(x, total, out=x, where=total != 0)
    return x

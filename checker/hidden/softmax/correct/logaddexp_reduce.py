"""Log-sum-exp by np.logaddexp.reduce of the shifted slice, then exp of the difference."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)  # an all -inf slice (or a NaN one): any finite shift will do
    with np.errstate(invalid='ignore'):
        shifted = x - m
        lse = np.logaddexp.reduce(shifted, axis=axis, keepdims=True)
        out = np.exp(shifted - lse)
    dead = np.isneginf(lse)
    return np.where(dead & ~np.isnan(x), 0.0, out).astype(x.dtype)

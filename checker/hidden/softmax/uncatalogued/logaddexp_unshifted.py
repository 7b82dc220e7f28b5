"""np.logaddexp.reduce over the unshifted x, then exp(x - lse): lse = m + log n rounds to m when |x| > ~1e16, every top weight 1."""
import numpy as np

def softmax(x, axis=-1):
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    with np.errstate(invalid='ignore'):
        lse = np.logaddexp.reduce(x, axis=axis, keepdims=True)
        out = np.exp(x - lse)
    dead = np.isneginf(lse)
    return np.where(dead & ~np.isnan(x), 0.0, out).astype(x.dtype)

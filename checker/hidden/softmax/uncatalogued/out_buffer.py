"""Right weights, written into one module-level buffer per shape and handed back: the previous result changes."""
import numpy as np

_OUT = {}


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    out = _OUT.setdefault(x.shape, np.empty(x.shape))
    m = x.max(axis=axis, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)
    np.exp(x - m, out=out)
    total = out.sum(axis=axis, keepdims=True)
    np.divide(out, total, out=out, where=total != 0)
    return out

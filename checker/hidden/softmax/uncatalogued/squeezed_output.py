import numpy as np

def softmax(x, axis=-1):
    x = np.squeeze(np.asarray(x, dtype=np.float64))
    if axis >= x.ndim or axis < -x.ndim:
        axis = -1
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)
    e = np.exp(x - m)
    s = e.sum(axis=axis, keepdims=True)
    out = np.zeros_like(e)
    np.divide(e, s, out=out, where=(s != 0))
    return out

import numpy as np

def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    x = np.where(np.isneginf(x), -1e30, x)    # avoid -inf arithmetic
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)

"""Float32 throughout, whatever the input: precise enough for every check."""
import numpy as np

def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isneginf(m), np.float32(0), m)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    s = np.where(s == 0, np.float32(1), s)
    return (e / s).astype(np.float32)

"""Returns float16 for any input: a float64 input loses its precision."""
import numpy as np

def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)
    e = np.exp(x - m)
    s = e.sum(axis=axis, keepdims=True)
    return (e / np.where(s == 0, 1.0, s)).astype(np.float16)

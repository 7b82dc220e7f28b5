"""Float32 throughout, a mask from np.greater_equal.outer and an additive -inf bias."""
import numpy as np

def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.greater_equal.outer(np.arange(n_q) + (n_k - n_q), np.arange(n_k))

def attention(q, k, v, mask=None):
    q = np.asarray(q, dtype=np.float32)
    k = np.asarray(k, dtype=np.float32)
    v = np.asarray(v, dtype=np.float32)
    s = (q @ np.swapaxes(k, -1, -2)) / np.float32(np.sqrt(q.shape[-1]))
    if mask is not None:
        bias = np.where(np.asarray(mask, dtype=bool), np.float32(0), np.float32(-np.inf))
        s = s + bias
    m = s.max(axis=-1, keepdims=True)
    dead = np.isneginf(m)
    e = np.exp(s - np.where(dead, np.float32(0), m))
    tot = e.sum(axis=-1, keepdims=True)
    w = e / np.where(dead, np.float32(1), tot)
    return w @ v, w

"""Correct: float16 kept throughout, -inf written into a copy of the scores, and a guarded softmax."""
import numpy as np
def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
def attention(q, k, v, mask=None):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    if q.dtype.kind != "f":
        q, k, v = q.astype(float), k.astype(float), v.astype(float)
    s = (q @ np.swapaxes(k, -1, -2)) * q.dtype.type(q.shape[-1] ** -0.5)
    if mask is not None:
        s = s.copy(); s[~np.broadcast_to(np.asarray(mask, bool), s.shape)] = -np.inf
    m = s.max(-1, keepdims=True); e = np.exp(s - np.where(np.isneginf(m), 0, m)); t = e.sum(-1, keepdims=True)
    w = np.divide(e, t, out=np.zeros_like(e), where=t > 0)
    return w @ v, w

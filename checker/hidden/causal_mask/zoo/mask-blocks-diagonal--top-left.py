"""Bug: ~triu(ones(n_q, n_k)) blocks the diagonal, and is aligned top-left besides (mask-top-left too)."""
import numpy as np
def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return ~np.triu(np.ones((n_q, n_k), dtype=bool))
def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=float) for x in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    m = s.max(-1, keepdims=True); e = np.exp(s - np.where(np.isneginf(m), 0, m)); t = e.sum(-1, keepdims=True)
    w = np.divide(e, t, out=np.zeros_like(e), where=t > 0)
    return w @ v, w

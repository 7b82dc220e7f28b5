"""Bug: a fill of -100 is not deep enough: blocked keys keep a tiny weight, and lose to scores below -100."""
import numpy as np
def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=float) for x in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -100.0)
    e = np.exp(s - s.max(-1, keepdims=True)); w = e / e.sum(-1, keepdims=True)
    if mask is not None:
        w = np.where(np.any(mask, -1, keepdims=True), w, 0)
    return w @ v, w

import numpy as np

def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)

def _prep(q, k, v):
    q = np.asarray(q); k = np.asarray(k); v = np.asarray(v)
    dt = np.result_type(q, k, v, np.float32)
    if dt == np.float16 or not np.issubdtype(dt, np.floating):
        dt = np.float32 if dt == np.float16 else np.float64
    return q.astype(dt), k.astype(dt), v.astype(dt)

def attention(q, k, v, mask=None):
    q, k, v = _prep(q, k, v)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(np.asarray(mask, dtype=bool), s, -np.inf)
    e = np.exp(s)
    tot = e.sum(-1, keepdims=True)
    w = np.divide(e, tot, out=np.zeros_like(e), where=tot > 0)
    return w @ v, w

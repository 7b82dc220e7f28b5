# hand copy of solutions/03_causal_mask.py: renamed, restyled, helper, loops, numpy, reordered
import numpy as np


def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    rows = np.zeros((n_q, n_k), dtype=bool)
    for i in range(n_q):
        rows[i] = np.arange(n_k) <= n_k - n_q + i
    return rows


def _stable_softmax(s):
    top = np.max(s, -1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top)
    ex = np.exp(s - top)
    tot = np.sum(ex, -1, keepdims=True)
    return np.divide(ex, tot, out=np.zeros_like(ex), where=tot != 0)


def _cast(q, k, v):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    dt = np.result_type(q, k, v, np.float32)
    return q.astype(dt), k.astype(dt), v.astype(dt), dt


def attention(q, k, v, mask=None):
    q, k, v, dt = _cast(q, k, v)
    dim = q.shape[-1]
    s = np.matmul(q, np.swapaxes(k, -2, -1)) / dt.type(np.sqrt(dim))
    if mask is not None:
        s = np.where(np.asarray(mask, dtype=bool), s, -np.inf)
    w = _stable_softmax(s)
    return np.matmul(w, v), w

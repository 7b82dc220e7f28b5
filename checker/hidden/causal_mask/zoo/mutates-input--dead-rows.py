"""Edits the caller's mask, but only when some query sees no key."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tri(n_q, n_k, k=n_k - n_q, dtype=bool)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(t) for t in (q, k, v))
    work = np.float32 if np.result_type(q, k, v) == np.float16 else np.float64
    q, k, v = q.astype(work), k.astype(work), v.astype(work)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    dead = np.zeros(scores.shape[:-1] + (1,), dtype=bool)
    if mask is not None:
        m = np.asarray(mask, dtype=bool)
        dead = ~m.any(axis=-1, keepdims=True)
        if dead.any():
            # let dead queries see key 0 so the softmax has no -inf row; zeroed below
            m[..., 0] |= dead[..., 0]
        scores = np.where(m, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    w = e / e.sum(axis=-1, keepdims=True)
    w = np.where(dead, 0.0, w)
    return w @ v, w

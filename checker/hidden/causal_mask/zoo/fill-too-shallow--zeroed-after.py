"""Fills blocked scores with -1e3, then zeroes blocked weights: scores of -1e5 lose to the fill."""
import numpy as np

NEG = -1e3   # way below any softmax-relevant score


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tri(n_q, n_k, k=n_k - n_q, dtype=bool)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(t) for t in (q, k, v))
    work = np.float32 if np.result_type(q, k, v) == np.float16 else np.float64
    q, k, v = q.astype(work), k.astype(work), v.astype(work)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        m = np.asarray(mask, dtype=bool)
        scores = np.where(m, scores, NEG)
        alive = m.any(axis=-1, keepdims=True)
    else:
        alive = np.True_
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    w = e / e.sum(axis=-1, keepdims=True)
    w = np.where(alive, w, 0.0)
    if mask is not None:
        w = np.where(m, w, 0.0)   # blocked keys exactly 0
    return w @ v, w

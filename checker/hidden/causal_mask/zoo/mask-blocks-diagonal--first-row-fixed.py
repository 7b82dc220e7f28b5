"""Bug: triu(k=0) taken as the blocked part, then the first row's key let back in so query 0 sees
something: every later query still misses its own key."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    blocked = np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
    blocked[0, 0] = False  # the first token must see something
    return ~blocked


def _softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - np.where(np.isneginf(m), 0.0, m))
    s = e.sum(axis=-1, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=float) for x in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = _softmax(scores)
    return weights @ v, weights

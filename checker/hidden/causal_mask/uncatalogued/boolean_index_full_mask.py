"""Blocks keys with a boolean index, scores[~mask] = -inf, which needs a mask of the scores' full shape: a
broadcastable mask (a (n_q, n_k) mask on batched scores, a padding mask) raises IndexError. An exception an
in-contract input provokes is a failed check that quotes it, not an `error`."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores[~np.asarray(mask, bool)] = -np.inf
    m = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return weights @ v, weights

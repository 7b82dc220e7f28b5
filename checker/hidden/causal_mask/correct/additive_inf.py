"""Correct: an additive mask of 0 / -inf, with the rows that see nothing set to zero afterwards."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tri(n_q, n_k, n_k - n_q, dtype=bool)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is None:
        mask = np.ones(scores.shape[-2:], dtype=bool)
    mask = np.asarray(mask, dtype=bool)
    scores = scores + np.where(mask, 0.0, -np.inf)
    sees_something = mask.any(axis=-1, keepdims=True)
    peak = np.where(sees_something, scores.max(axis=-1, keepdims=True), 0.0)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - peak)
        weights = np.where(sees_something, e / e.sum(axis=-1, keepdims=True), 0.0)
    return weights @ v, weights

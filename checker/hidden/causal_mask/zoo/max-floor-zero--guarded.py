"""Floors the maximum at 0 and guards empty rows: an all-negative row underflows to zeros, not NaN (kata 02's
max-floor-zero)."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=float) for x in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - np.maximum(scores.max(axis=-1, keepdims=True), 0.0))
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return weights @ v, weights

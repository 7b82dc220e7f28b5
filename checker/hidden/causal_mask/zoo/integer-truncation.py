"""Keeps the inputs' dtype: integer q and k give an integer score table, so each score sqrt(d_k) divides is
truncated to a whole number before the softmax (kata 01's integer-truncation, inside attention)."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    scores = np.zeros(q.shape[:-1] + k.shape[-2:-1], dtype=np.result_type(q, k))  # (..., n_q, n_k), q's dtype
    scores[...] = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # written into an int array: truncated
    scores = scores.astype(float)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    peak = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isfinite(peak), peak, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return weights @ v, weights

"""Correct: einsum for scores and output, masked_fill with -inf, NaN-free softmax via nan_to_num
on the maximum only."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return ~np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    scores = np.einsum("...id,...jd->...ij", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    peak = np.max(scores, axis=-1, keepdims=True)
    peak[np.isneginf(peak)] = 0.0
    e = np.exp(scores - peak)
    total = e.sum(axis=-1, keepdims=True)
    weights = e / np.where(total == 0, 1.0, total)
    return np.einsum("...ij,...jd->...id", weights, v), weights

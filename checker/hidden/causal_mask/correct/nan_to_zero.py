"""Correct: a textbook softmax, then the NaN rows of queries that see nothing replaced by zeros."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    mask = np.ones((n_q, n_k), dtype=bool)
    for i in range(n_q):
        mask[i, max(n_k - n_q + i + 1, 0):] = False
    return mask


def attention(q, k, v, mask=None):
    q, k, v = np.array(q, dtype=float), np.array(k, dtype=float), np.array(v, dtype=float)
    scores = q @ k.swapaxes(-1, -2) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = np.nan_to_num(e / e.sum(axis=-1, keepdims=True), nan=0.0)
    return weights @ v, weights

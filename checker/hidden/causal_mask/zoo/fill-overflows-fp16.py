"""Bug: keeps float16 and fills with -1e9, which is -inf in float16: a query with no visible key
gets -inf - (-inf) = NaN, and NaN * 0 is still NaN."""
import math

import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    if q.dtype.kind != "f":
        q, k, v = q.astype(float), k.astype(float), v.astype(float)
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # stays float16 for float16 input
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    if mask is not None:
        weights = weights * np.any(mask, axis=-1, keepdims=True)
    return weights @ v, weights

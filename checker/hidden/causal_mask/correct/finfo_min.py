"""Correct: fills with the dtype's most negative number, keeps the input's float dtype, and zeroes the
queries that see nothing."""
import numpy as np


def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    rows = np.arange(n_q).reshape(-1, 1)
    cols = np.arange(n_k).reshape(1, -1)
    return cols - rows <= n_k - n_q


def attention(q, k, v, mask=None):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    dtype = np.result_type(q.dtype, k.dtype, v.dtype, np.float16)
    q, k, v = q.astype(dtype), k.astype(dtype), v.astype(dtype)
    scores = (q @ np.swapaxes(k, -1, -2)) * dtype.type(1 / np.sqrt(q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, np.finfo(dtype).min)
    with np.errstate(over="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    if mask is not None:
        weights = np.where(np.any(mask, axis=-1, keepdims=True), weights, dtype.type(0))
    return weights @ v, weights

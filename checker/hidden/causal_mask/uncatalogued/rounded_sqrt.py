"""Divides the scores by math.isqrt(d_k), sqrt(d_k) rounded down: on d_k = 5 with n_q = 4 that is 2 = sqrt(n_q),
on d_k = 2 or 3 it is 1 (no scale), and on integer inputs its weights can equal truncated scores' (a softmax
forgets a shift): no catalogued bug explains it on any input, and none is named."""

import math

import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + (n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / math.isqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    peak = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isfinite(peak), peak, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return weights @ v, weights

"""Correct: computes in float32 whatever comes in and hands back float64 (float32 inside a float64 result)."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + (n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=np.float32) for x in (q, k, v))
    scores = (q / np.float32(np.sqrt(q.shape[-1]))) @ np.swapaxes(k, -1, -2)
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-np.inf))
    peak = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isneginf(peak), np.float32(0), peak))
    total = e.sum(axis=-1, keepdims=True, dtype=np.float32)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (weights @ v).astype(np.float64), weights.astype(np.float64)

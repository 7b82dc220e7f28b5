"""Scales q in place, which reaches the caller's array only for float32 and float16 input."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tri(n_q, n_k, k=n_k - n_q, dtype=bool)


def _as_work(x):
    x = np.asarray(x)
    if x.dtype in (np.float16, np.float32):
        return x.astype(np.float32, copy=False)   # keep single precision (float16 -> float32)
    return np.array(x, dtype=np.float64)          # lists, ints, float64 -> our own copy


def attention(q, k, v, mask=None):
    q, k, v = _as_work(q), _as_work(k), _as_work(v)
    q *= q.dtype.type(1.0 / np.sqrt(q.shape[-1]))  # pre-scale the queries
    scores = q @ np.swapaxes(k, -1, -2)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(scores - top)
    z = e.sum(axis=-1, keepdims=True)
    w = np.divide(e, z, out=np.zeros_like(e), where=z > 0)
    return w @ v, w

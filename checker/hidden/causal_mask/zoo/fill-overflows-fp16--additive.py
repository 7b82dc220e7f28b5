"""Bug: an additive mask (1 - mask) * -1e9 built in float16: -1e9 is -inf there, and 0 * -inf is NaN."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    if q.dtype.kind != "f":
        q, k, v = q.astype(float), k.astype(float), v.astype(float)
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) * d_k ** -0.5
    if mask is not None:
        mask = np.asarray(mask)
        scores = scores + (1.0 - mask.astype(scores.dtype)) * -1e9
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    if mask is not None:
        weights = np.where(mask.any(axis=-1, keepdims=True), weights, 0)
    return weights @ v, weights

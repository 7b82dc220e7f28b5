"""Bug: the weights of blocked keys are zeroed after the softmax, so the rest no longer sum to 1."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=float) for x in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    if mask is not None:
        weights = weights * mask  # too late: the softmax already shared the weight with blocked keys
    return weights @ v, weights

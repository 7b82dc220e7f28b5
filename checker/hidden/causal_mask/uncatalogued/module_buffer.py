"""Right weights, written into a module-level buffer per shape and handed back: an earlier result changes."""
import numpy as np

_WEIGHTS = {}


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    m = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    weights = _WEIGHTS.setdefault(e.shape, np.empty(e.shape))
    np.divide(e, total, out=weights, where=total > 0)
    weights[np.broadcast_to(total == 0, weights.shape)] = 0.0
    return weights @ v, weights

"""Computes in the input's own dtype, filling with that dtype's most negative number."""
import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.greater_equal.outer(np.arange(n_q) + (n_k - n_q), np.arange(n_k))


def attention(q, k, v, mask=None):
    """Computes in the inputs' own float dtype (float16 stays float16)."""
    q, k, v = (np.asarray(t) for t in (q, k, v))
    dt = np.result_type(q, k, v)
    if dt.kind != "f":
        dt = np.dtype(np.float64)
    q, k, v = q.astype(dt), k.astype(dt), v.astype(dt)
    # scale q and k by d**-0.25 each so float16 products stay in range
    c = dt.type(q.shape[-1] ** -0.25)
    scores = (q * c) @ np.swapaxes(k * c, -1, -2)
    m = np.ones(scores.shape[-2:], bool) if mask is None else np.asarray(mask, dtype=bool)
    scores = np.where(m, scores, np.finfo(dt).min)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores) * m                        # blocked: exactly 0 (fill already gave ~0)
    z = e.sum(axis=-1, keepdims=True)
    w = e / np.where(z > 0, z, dt.type(1))
    return w @ v, w

"""Bug: the mask inverted (True read as blocked), via ~mask."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    dtype = np.result_type(q, k, v, np.float32)
    q, k, v = (np.asarray(x, dtype) for x in (q, k, v))  # a cast only when needed, never written to
    *lead, n_q, d = q.shape
    n_k, d_v = k.shape[-2], v.shape[-1]
    scale = dtype.type(1 / np.sqrt(d))
    allowed = None if mask is None else np.broadcast_to(  # a view: no (n_q, n_k) copy
        ~np.asarray(mask, bool), np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    m = np.full((*lead, n_q, 1), -np.inf, dtype)  # (..., n_q, 1) running max
    l = np.zeros((*lead, n_q, 1), dtype)  # (..., n_q, 1) running sum of exp(score - m)
    o = np.zeros((*lead, n_q, d_v), dtype)  # (..., n_q, d_v) running sum of exp(score - m) * value
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        scores = q @ np.swapaxes(k[..., start:stop, :], -1, -2) * scale  # (..., n_q, B)
        visible = _visible(allowed, causal, n_q, n_k, start, stop)  # (..., n_q, B) or None
        if visible is not None:
            scores = np.where(visible, scores, -np.inf)
        m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))  # (..., n_q, 1)
        # a query that has seen no key yet keeps m = -inf: shift by 0 so exp(-inf) = 0, never -inf - (-inf)
        shift = np.where(np.isneginf(m_new), 0, m_new)  # (..., n_q, 1)
        p = np.exp(scores - shift)  # (..., n_q, B)
        rescale = np.exp(m - shift)  # (..., n_q, 1): exp(m_old - m_new) <= 1
        l = l * rescale + p.sum(axis=-1, keepdims=True)  # (..., n_q, 1)
        o = o * rescale + p @ v[..., start:stop, :]  # (..., n_q, d_v)
        m = m_new
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)  # (..., n_q, d_v): no visible key gives 0


def _visible(allowed, causal, n_q, n_k, start, stop):
    """Which keys start..stop-1 each query may see, (..., n_q, B), or None when every key is visible."""
    visible = None if allowed is None else allowed[..., start:stop]  # (..., n_q, B)
    if causal:
        # query i is position n_k - n_q + i among the keys (bottom-right, as kata 03)
        near = np.arange(start, stop) <= np.arange(n_k - n_q, n_k)[:, None]  # (n_q, B)
        visible = near if visible is None else visible & near
    return visible

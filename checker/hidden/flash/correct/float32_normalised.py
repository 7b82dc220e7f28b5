"""Correct: float32 accumulators, and the running output kept normalised at every block (FlashAttention 1),
rescaled by l_old * exp(m_old - m_new) / l_new instead of divided once at the end."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q = np.array(q, dtype=np.float32)
    k = np.array(k, dtype=np.float32)
    v = np.array(v, dtype=np.float32)
    n_q, n_k = q.shape[-2], k.shape[-2]
    q = q / np.float32(np.sqrt(q.shape[-1]))
    allowed = None
    if mask is not None:
        allowed = np.asarray(mask, dtype=bool)
        allowed = np.broadcast_to(allowed, allowed.shape[:-2] + (n_q, n_k)) if allowed.ndim >= 2 else \
            np.broadcast_to(allowed, (n_q, n_k))
    shape = np.broadcast_shapes(q.shape[:-1], k.shape[:-2] + (1,))
    m = np.full(shape + (1,), -np.inf, np.float32)
    l = np.zeros(shape + (1,), np.float32)
    o = np.zeros(shape + (v.shape[-1],), np.float32)
    rows = np.arange(n_q)[:, None] + (n_k - n_q)
    for start in range(0, n_k, block_size):
        end = min(start + block_size, n_k)
        s = q @ k[..., start:end, :].swapaxes(-1, -2)
        keep = np.ones((n_q, end - start), bool)
        if causal:
            keep &= np.arange(start, end)[None, :] <= rows
        if allowed is not None:
            keep = keep & allowed[..., start:end]
        s = np.where(keep, s, -np.inf)
        block_max = s.max(axis=-1, keepdims=True)
        m_new = np.maximum(m, block_max)
        finite = np.isfinite(m_new)
        safe_new = np.where(finite, m_new, 0).astype(np.float32)
        p = np.where(keep, np.exp(s - safe_new), 0).astype(np.float32)
        alpha = np.where(finite, np.exp(np.where(np.isfinite(m), m, -np.inf) - safe_new), 0).astype(np.float32)
        l_new = alpha * l + p.sum(axis=-1, keepdims=True)
        safe_l = np.where(l_new > 0, l_new, 1).astype(np.float32)
        o = np.where(l_new > 0, (alpha * l * o + p @ v[..., start:end, :]) / safe_l, 0).astype(np.float32)
        m, l = m_new, l_new
    return o

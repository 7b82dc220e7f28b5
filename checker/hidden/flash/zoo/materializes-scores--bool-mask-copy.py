"""Bug: a mask is copied out whole, as an (n_q, n_k) table of bools (1 byte a pair), then sliced block by
block: right numbers, but memory grows with n_q * n_k."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    dt = np.result_type(q, k, v, np.float32)
    q, k, v = (np.asarray(a, dtype=dt) for a in (q, k, v))
    *lead, n_q, d = q.shape
    n_k, d_v = k.shape[-2], v.shape[-1]
    lead = tuple(lead)
    if mask is not None:
        mask = np.broadcast_to(np.asarray(mask, dtype=bool), lead + (n_q, n_k)).copy()  # built whole
    q_pos = np.arange(n_q)[:, None] + (n_k - n_q)
    m = np.full(lead + (n_q, 1), -np.inf, dtype=dt)
    l = np.zeros(lead + (n_q, 1), dtype=dt)
    o = np.zeros(lead + (n_q, d_v), dtype=dt)
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = (q @ np.swapaxes(k[..., start:stop, :], -1, -2)) / np.sqrt(d)
        allowed = (np.arange(start, stop)[None, :] <= q_pos) if causal else None
        if mask is not None:
            allowed = mask[..., start:stop] if allowed is None else allowed & mask[..., start:stop]
        if allowed is not None:
            s = np.where(allowed, s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        m_ref = np.where(np.isneginf(m_new), 0.0, m_new)
        alpha = np.exp(m - m_ref)
        p = np.exp(s - m_ref)
        l = l * alpha + p.sum(axis=-1, keepdims=True)
        o = o * alpha + p @ v[..., start:stop, :]
        m = m_new
    return np.where(l > 0, o / np.where(l > 0, l, 1), 0)

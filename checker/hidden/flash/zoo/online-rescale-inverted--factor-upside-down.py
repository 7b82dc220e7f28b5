"""Bug: rescaled by exp(m_new - m_old)."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    *lead, n_q, d = q.shape
    lead = tuple(lead)
    n_k = k.shape[-2]
    if mask is not None:
        mask = np.broadcast_to(mask, lead + (n_q, n_k))
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    o = np.zeros(lead + (n_q, v.shape[-1]))
    for s0 in range(0, n_k, block_size):
        s1 = min(s0 + block_size, n_k)
        s = q @ np.swapaxes(k[..., s0:s1, :], -1, -2) / np.sqrt(d)
        if causal:
            s = np.where(np.arange(s0, s1) <= np.arange(n_q)[:, None] + n_k - n_q, s, -np.inf)
        if mask is not None:
            s = np.where(mask[..., s0:s1], s, -np.inf)
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        ref = np.where(np.isneginf(m_new), 0.0, m_new)
        old = np.where(np.isneginf(m), 0.0, m)
        # shrink what we had by how much the max grew
        corr = np.where(np.isneginf(m), 0.0, 1.0 / np.exp(old - ref))
        p = np.exp(s - ref)
        l = corr * l + p.sum(-1, keepdims=True)
        o = corr * o + p @ v[..., s0:s1, :]
        m = m_new
    return np.where(l > 0, o / np.where(l > 0, l, 1), 0.0)

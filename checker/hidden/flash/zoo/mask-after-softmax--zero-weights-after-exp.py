"""Bug: masked weights zeroed after the exponentials, still counted in the max and sum."""

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
        keep = np.ones(s.shape, dtype=bool)
        if causal:
            keep &= np.arange(s0, s1) <= np.arange(n_q)[:, None] + n_k - n_q
        if mask is not None:
            keep &= mask[..., s0:s1]
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        corr = np.exp(m - m_new)
        p = np.exp(s - m_new)
        l = corr * l + p.sum(-1, keepdims=True)
        o = corr * o + (p * keep) @ v[..., s0:s1, :]   # blocked keys contribute nothing
        m = m_new
    return o / l

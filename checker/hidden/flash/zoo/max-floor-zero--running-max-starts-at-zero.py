"""Bug: the running max starts at 0."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    *lead, n_q, d = q.shape
    lead = tuple(lead)
    n_k = k.shape[-2]
    if mask is not None:
        mask = np.broadcast_to(mask, lead + (n_q, n_k))
    # start the running max at 0: no -inf - (-inf) can ever happen
    m = np.zeros(lead + (n_q, 1))
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
        corr = np.exp(m - m_new)
        p = np.exp(s - m_new)
        l = corr * l + p.sum(-1, keepdims=True)
        o = corr * o + p @ v[..., s0:s1, :]
        m = m_new
    return np.where(l > 0, o / np.where(l > 0, l, 1), 0.0)

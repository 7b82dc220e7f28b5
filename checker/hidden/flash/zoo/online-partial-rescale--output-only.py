"""Bug: only the running output rescaled."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q = np.asarray(q, dtype=np.float32)
    k = np.asarray(k, dtype=np.float32)
    v = np.asarray(v, dtype=np.float32)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    lead = q.shape[:-2]
    if mask is not None:
        mask = np.broadcast_to(mask, lead + (n_q, n_k))
    m = np.full(lead + (n_q,), -np.inf, np.float32)
    l = np.zeros(lead + (n_q,), np.float32)
    o = np.zeros(lead + (n_q, v.shape[-1]), np.float32)
    for s0 in range(0, n_k, block_size):
        s1 = min(s0 + block_size, n_k)
        s = np.einsum("...id,...jd->...ij", q, k[..., s0:s1, :]) / np.float32(np.sqrt(d))
        if causal:
            s = np.where(np.arange(s0, s1) <= np.arange(n_q)[:, None] + n_k - n_q, s, -np.inf)
        if mask is not None:
            s = np.where(mask[..., s0:s1], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        ok = np.isfinite(m_new)
        base = np.where(ok, m_new, 0)
        p = np.exp(s - base[..., None])
        o = o * np.where(ok, np.exp(m - base), 0)[..., None] + p @ v[..., s0:s1, :]
        l = l + p.sum(-1)
        m = m_new
    safe = np.where(l > 0, l, 1)
    return np.where((l > 0)[..., None], o / safe[..., None], 0).astype(np.float32)

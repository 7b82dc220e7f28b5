"""uncatalogued: the rescale factor measured against the block max, not the running max"""
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    *lead, n_q, d = q.shape
    n_k = k.shape[-2]
    lead = tuple(lead)
    if mask is not None:
        mask = np.asarray(mask, bool)
    pos = np.arange(n_q)[:, None] + (n_k - n_q)
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    o = np.zeros(lead + (n_q, v.shape[-1]))
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) * (1 / np.sqrt(d))
        ok = np.ones((n_q, stop - start), bool)
        if causal:
            ok = np.arange(start, stop)[None, :] <= pos
        if mask is not None:
            ok = ok & mask[..., start:stop]
        s = np.where(ok, s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(m_new), 0.0, m_new)
        p = np.exp(s - shift)
        alpha = np.exp(m - np.where(np.isneginf(s.max(-1, keepdims=True)), 0, s.max(-1, keepdims=True)))
        l = alpha * l + p.sum(axis=-1, keepdims=True)
        o = alpha * o + p @ v[..., start:stop, :]
        m = m_new
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)

"""Bug: a while loop that only takes whole blocks: the keys left after the last full block are never seen."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    m = np.full(q.shape[:-1] + (1,), -np.inf)
    l = np.zeros_like(m)
    o = np.zeros(q.shape[:-1] + (v.shape[-1],))
    start = 0
    while start + block_size <= n_k:
        s = q @ np.swapaxes(k[..., start:start + block_size, :], -1, -2) / np.sqrt(d)
        ok = np.ones(s.shape[-2:], bool)
        if causal:
            ok = ok & (np.arange(start, start + block_size) <= np.arange(n_k - n_q, n_k)[:, None])
        if mask is not None:
            full = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
            ok = ok & full[..., start:start + block_size]
        s = np.where(ok, s, -np.inf)
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        safe = np.where(np.isneginf(m_new), 0, m_new)
        p = np.exp(s - safe)
        alpha = np.exp(m - safe)
        l = alpha * l + p.sum(-1, keepdims=True)
        o = alpha * o + p @ v[..., start:start + block_size, :]
        m = m_new
        start += block_size
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)

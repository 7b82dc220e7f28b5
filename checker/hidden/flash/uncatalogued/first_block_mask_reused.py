"""Uncatalogued: every block is masked with the first block's columns of the mask."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(a, float) for a in (q, k, v))
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    lead = q.shape[:-2]
    if mask is not None:
        mask = np.asarray(mask, bool)
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    o = np.zeros(lead + (n_q, v.shape[-1]))
    rows = np.arange(n_q)[:, None] + n_k - n_q  # (n_q, 1): each query's position
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d)  # (..., n_q, B)
        ok = np.ones((n_q, stop - start), bool)
        if causal:
            ok = np.arange(start, stop) <= rows
        if mask is not None:
            ok = ok & mask[..., :stop - start]
        s = np.where(ok, s, -np.inf)
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        sh = np.where(np.isneginf(m_new), 0.0, m_new)
        p = np.exp(s - sh)
        a = np.exp(m - sh)
        l = a * l + p.sum(-1, keepdims=True)
        o = a * o + p @ v[..., start:stop, :]
        m = m_new
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)

"""Correct (written from the stub alone): blocks queries and keys."""

import numpy as np


def _tile(qb, k, v, row0, n_q, n_k, bs, causal, mask):
    lead = qb.shape[:-2]
    nq_b = qb.shape[-2]
    m = np.full(lead + (nq_b, 1), -np.inf)
    l = np.zeros(lead + (nq_b, 1))
    o = np.zeros(lead + (nq_b, v.shape[-1]))
    rows = np.arange(row0, row0 + nq_b)[:, None]
    for c0 in range(0, n_k, bs):
        c1 = min(c0 + bs, n_k)
        cols = np.arange(c0, c1)[None, :]
        s = qb @ np.swapaxes(k[..., c0:c1, :], -1, -2)
        keep = np.ones((nq_b, c1 - c0), dtype=bool)
        if causal:
            keep = cols <= rows + (n_k - n_q)
        if mask is not None:
            keep = keep & mask[..., row0:row0 + nq_b, c0:c1]
        s = np.where(keep, s, -np.inf)
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        finite = np.isfinite(m_new)
        base = np.where(finite, m_new, 0.0)
        scale_old = np.where(finite, np.exp(m - base), 0.0)
        p = np.exp(s - base)
        l = l * scale_old + p.sum(-1, keepdims=True)
        o = o * scale_old + p @ v[..., c0:c1, :]
        m = m_new
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    v = np.asarray(v, dtype=float)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    qs = q / np.sqrt(d)
    if mask is not None:
        mask = np.broadcast_to(mask, q.shape[:-2] + (n_q, n_k))
    out = np.empty(q.shape[:-2] + (n_q, v.shape[-1]))
    for r0 in range(0, n_q, block_size):
        r1 = min(r0 + block_size, n_q)
        out[..., r0:r1, :] = _tile(qs[..., r0:r1, :], k, v, r0, n_q, n_k, block_size, causal, mask)
    return out

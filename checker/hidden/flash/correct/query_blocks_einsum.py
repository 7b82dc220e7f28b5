"""Correct: blocks over the queries as well as the keys, einsum, an additive mask with a finite fill and
the masked weights zeroed explicitly."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = np.asarray(q, np.float64), np.asarray(k, np.float64), np.asarray(v, np.float64)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    out = np.zeros((*lead, n_q, v.shape[-1]))
    full = None if mask is None else np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    for q0 in range(0, n_q, block_size):
        q1 = min(n_q, q0 + block_size)
        qb = q[..., q0:q1, :]
        m = np.full((*lead, q1 - q0), np.finfo(np.float64).min)
        l = np.zeros((*lead, q1 - q0))
        acc = np.zeros((*lead, q1 - q0, v.shape[-1]))
        for k0 in range(0, n_k, block_size):
            k1 = min(n_k, k0 + block_size)
            s = np.einsum("...id,...jd->...ij", qb, k[..., k0:k1, :]) / np.sqrt(d)
            ok = np.ones(s.shape[-2:], bool)
            if causal:
                ok = ok & (np.arange(k0, k1)[None, :] <= (n_k - n_q + np.arange(q0, q1))[:, None])
            if full is not None:
                ok = ok & full[..., q0:q1, k0:k1]
            ok = np.broadcast_to(ok, s.shape)
            s = np.where(ok, s, np.finfo(np.float64).min)
            m_new = np.maximum(m, s.max(-1))
            p = np.exp(s - m_new[..., None]) * ok
            alpha = np.exp(m - m_new)
            l = alpha * l + p.sum(-1)
            acc = alpha[..., None] * acc + np.einsum("...ij,...jd->...id", p, v[..., k0:k1, :])
            m = m_new
        safe = np.where(l > 0, l, 1.0)
        out[..., q0:q1, :] = np.where(l[..., None] > 0, acc / safe[..., None], 0.0)
    return out

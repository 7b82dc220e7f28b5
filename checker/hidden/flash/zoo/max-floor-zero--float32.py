"""Bug: float32 inside, and the running max starts at 0 (m = zeros): scores far below 0 underflow."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (q, k, v))
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    q = q / np.float32(np.sqrt(d))
    m = np.zeros(q.shape[:-1], np.float32)
    l = np.zeros(q.shape[:-1], np.float32)
    acc = np.zeros(q.shape[:-1] + (v.shape[-1],), np.float32)
    query_pos = np.arange(n_q)[:, None] + n_k - n_q
    for b0 in range(0, n_k, block_size):
        b1 = min(b0 + block_size, n_k)
        s = np.einsum("...qd,...kd->...qk", q, k[..., b0:b1, :])
        keep = np.ones((n_q, b1 - b0), bool)
        if causal:
            keep = keep & (np.arange(b0, b1)[None, :] <= query_pos)
        if mask is not None:
            keep = keep & np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))[..., b0:b1]
        s = np.where(keep, s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        p = np.exp(s - m_new[..., None])
        a = np.exp(m - m_new)
        l = a * l + p.sum(-1)
        acc = a[..., None] * acc + np.einsum("...qk,...kd->...qd", p, v[..., b0:b1, :])
        m = m_new
    out = np.zeros_like(acc)
    np.divide(acc, l[..., None], out=out, where=l[..., None] > 0)
    return out

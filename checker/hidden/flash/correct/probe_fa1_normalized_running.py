"""Correct (written from the stub alone): fa1 normalized running."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    """FlashAttention-1 bookkeeping: o is kept normalised (o = weighted mean so far)."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    lead = q.shape[:-2]
    if mask is not None:
        mask = np.broadcast_to(mask, lead + (n_q, n_k))
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    o = np.zeros(lead + (n_q, v.shape[-1]))
    for j in range(0, n_k, block_size):
        je = min(j + block_size, n_k)
        s = q @ np.swapaxes(k[..., j:je, :], -1, -2) / np.sqrt(d)
        if causal:
            s = np.where(np.arange(j, je) <= np.arange(n_q)[:, None] + n_k - n_q, s, -np.inf)
        if mask is not None:
            s = np.where(mask[..., j:je], s, -np.inf)
        m_blk = s.max(-1, keepdims=True)
        m_new = np.maximum(m, m_blk)
        ref = np.where(np.isneginf(m_new), 0.0, m_new)
        a = np.exp(m - ref)
        p = np.exp(s - ref)
        l_new = a * l + p.sum(-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            o_new = (a * l * o + p @ v[..., j:je, :]) / l_new
        o = np.where(l_new > 0, o_new, 0.0)
        l, m = l_new, m_new
    return o

"""Bug: einsum, masked scores set to -inf, and the running max used as the shift with no guard: a query
whose first block is all padding gets -inf - (-inf) = NaN."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(t, dtype=np.float64) for t in (q, k, v))
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    scale = 1.0 / np.sqrt(d)
    allowed = np.ones((n_q, n_k), bool) if mask is None else np.broadcast_to(
        mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    if causal:
        allowed = allowed & (np.arange(n_k)[None, :] <= np.arange(n_q)[:, None] + n_k - n_q)
    m = np.full(q.shape[:-1], -np.inf)
    l = np.zeros(q.shape[:-1])
    o = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for j in range(0, n_k, block_size):
        s = np.einsum("...id,...jd->...ij", q, k[..., j:j + block_size, :]) * scale
        s = np.where(allowed[..., j:j + block_size], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        p = np.exp(s - m_new[..., None])
        corr = np.exp(m - m_new)
        l = corr * l + p.sum(-1)
        o = corr[..., None] * o + np.einsum("...ij,...jd->...id", p, v[..., j:j + block_size, :])
        m = m_new
    return np.where(l[..., None] > 0, o / np.where(l > 0, l, 1)[..., None], 0.0)

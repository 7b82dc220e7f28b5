"""Correct (written from the stub alone): float32 throughout."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    f32 = np.float32
    q = np.asarray(q, dtype=f32)
    k = np.asarray(k, dtype=f32)
    v = np.asarray(v, dtype=f32)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    lead = q.shape[:-2]
    q = q * f32(1.0 / np.sqrt(d))  # scale once, on a copy
    full = None if mask is None else np.broadcast_to(mask, lead + (n_q, n_k))
    row = np.arange(n_q, dtype=np.int64).reshape(-1, 1) + (n_k - n_q)

    m = np.full(lead + (n_q,), -np.inf, dtype=f32)
    l = np.zeros(lead + (n_q,), dtype=f32)
    o = np.zeros(lead + (n_q, v.shape[-1]), dtype=f32)
    start = 0
    while start < n_k:
        stop = min(n_k, start + block_size)
        s = np.einsum("...qd,...kd->...qk", q, k[..., start:stop, :])
        ok = np.ones(s.shape[-2:], dtype=bool)
        if causal:
            ok = ok & (np.arange(start, stop) <= row)
        if full is not None:
            ok = ok & full[..., start:stop]
        s = np.where(ok, s, f32(-np.inf))
        blk_max = s.max(axis=-1)
        m_new = np.maximum(m, blk_max)
        seen = np.isfinite(m_new)
        shift = np.where(seen, m_new, f32(0))
        corr = np.where(seen, np.exp(m - shift), f32(0))
        p = np.exp(s - shift[..., None])
        l = corr * l + p.sum(axis=-1)
        o = corr[..., None] * o + np.einsum("...qk,...kv->...qv", p, v[..., start:stop, :])
        m = m_new
        start = stop
    out = np.zeros_like(o)
    nz = l > 0
    out[nz] = o[nz] / l[nz][:, None]
    return out

"""Bug: the running max is re-initialised to -inf inside the loop, at every block: exp(m - m_new) = 0 then wipes
the running sum and output, and only the last block counts."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = np.asarray(q, dtype=float), np.asarray(k, dtype=float), np.asarray(v, dtype=float)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    if mask is not None:
        mask = np.broadcast_to(np.asarray(mask, bool), np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    m = None
    l = np.zeros(q.shape[:-1] + (1,))
    o = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for start in range(0, n_k, block_size):
        m = np.full(q.shape[:-1] + (1,), -np.inf)
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d)
        ok = np.ones((n_q, stop - start), bool)
        if causal:
            ok = np.arange(start, stop) <= np.arange(n_k - n_q, n_k)[:, None]
        if mask is not None:
            ok = ok & mask[..., start:stop]
        s = np.where(ok, s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(m_new), 0.0, m_new)
        p = np.exp(s - shift)
        alpha = np.exp(m - shift)
        l = alpha * l + p.sum(axis=-1, keepdims=True)
        o = alpha * o + p @ v[..., start:stop, :]
        m = m_new
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)

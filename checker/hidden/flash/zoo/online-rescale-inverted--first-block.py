"""Bug: the first block sets the state; later blocks rescale it by exp(m_new - m_old), inverted."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = np.asarray(q, float), np.asarray(k, float), np.asarray(v, float)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    full = None if mask is None else np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    m = l = o = None
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d)
        ok = np.ones((n_q, stop - start), bool)
        if causal:
            ok = np.arange(start, stop) <= np.arange(n_k - n_q, n_k)[:, None]
        if full is not None:
            ok = ok & full[..., start:stop]
        s = np.where(ok, s, -np.inf)
        block_max = s.max(-1, keepdims=True)
        if m is None:
            m = block_max
            p = np.exp(s - np.where(np.isneginf(m), 0, m))
            l, o = p.sum(-1, keepdims=True), p @ v[..., start:stop, :]
            continue
        m_new = np.maximum(m, block_max)
        safe_new, safe_old = np.where(np.isneginf(m_new), 0, m_new), np.where(np.isneginf(m), 0, m)
        p = np.exp(s - safe_new)
        alpha = np.exp(safe_new - safe_old)
        l = alpha * l + p.sum(-1, keepdims=True)
        o = alpha * o + p @ v[..., start:stop, :]
        m = m_new
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)

"""The causal offset has the wrong sign, i + (n_q - n_k): with n_q < n_k no query sees any key (zeros)."""
import numpy as np

def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q = np.asarray(q, dtype=np.float64); k = np.asarray(k, dtype=np.float64); v = np.asarray(v, dtype=np.float64)
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = q.shape[:-2]
    if mask is not None:
        mask = np.asarray(mask, bool)
        mask = np.broadcast_to(mask, mask.shape[:-1] + (n_k,))
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    o = np.zeros(lead + (n_q, v.shape[-1]))
    rows = np.arange(n_q)[:, None] + (n_q - n_k)
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d)
        ok = np.ones((n_q, stop - start), bool)
        if causal:
            ok = ok & (np.arange(start, stop)[None, :] <= rows)
        if mask is not None:
            ok = ok & mask[..., start:stop]
        s = np.where(ok, s, -np.inf)
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        safe = np.where(np.isneginf(m_new), 0.0, m_new)
        alpha = np.exp(m - safe)
        p = np.exp(s - safe)
        l = l * alpha + p.sum(-1, keepdims=True)
        o = o * alpha + p @ v[..., start:stop, :]
        m = m_new
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)

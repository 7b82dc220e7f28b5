"""Uncatalogued: each query head reads the right kv head, but outputs are merged group-major (slots permuted)."""
import numpy as np


def repeat_kv(x, n_rep):
    return np.repeat(x, n_rep, axis=1)


def grouped_query_attention(q, k, v, causal=True):
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv:
        raise ValueError(f"h_q={h_q} not divisible by h_kv={h_kv}")
    g = h_q // h_kv
    q5 = q.reshape(b, h_kv, g, n_q, d)
    s = q5 @ np.swapaxes(k, -1, -2)[:, :, None] / np.sqrt(d)
    if causal:
        ok = np.arange(n_k) <= np.arange(n_q)[:, None] + n_k - n_q
        s = np.where(ok, s, -np.inf)
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    out = p @ v[:, :, None]  # (b, h_kv, g, n_q, d_v)
    return out.transpose(0, 2, 1, 3, 4).reshape(b, h_q, n_q, v.shape[-1])

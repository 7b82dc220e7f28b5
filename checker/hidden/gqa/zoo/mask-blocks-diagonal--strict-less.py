import numpy as np


def repeat_kv(x, n_rep):
    return np.repeat(x, n_rep, axis=1)


def grouped_query_attention(q, k, v, causal=True):
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv:
        raise ValueError(f"h_q={h_q} not divisible by h_kv={h_kv}")
    k = repeat_kv(k, h_q // h_kv)
    v = repeat_kv(v, h_q // h_kv)
    s = q @ k.swapaxes(-1, -2) / np.sqrt(d)
    if causal:
        pos_q = np.arange(n_q)[:, None] + (n_k - n_q)
        pos_k = np.arange(n_k)[None, :]
        s = np.where(pos_k < pos_q, s, -np.inf)
    m = s.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(s - m)
    den = e.sum(-1, keepdims=True)
    return e / np.where(den == 0, 1, den) @ v

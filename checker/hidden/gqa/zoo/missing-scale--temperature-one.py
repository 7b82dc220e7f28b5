import numpy as np


def repeat_kv(x, n_rep):
    return np.repeat(x, n_rep, axis=1)


def grouped_query_attention(q, k, v, causal=True, temperature=1.0):
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv:
        raise ValueError(f"h_q={h_q}, h_kv={h_kv}: not divisible")
    k = repeat_kv(k, h_q // h_kv)
    v = repeat_kv(v, h_q // h_kv)
    s = np.einsum("bhqd,bhkd->bhqk", q, k) / temperature
    if causal:
        s = np.where(np.tri(n_q, n_k, n_k - n_q, dtype=bool), s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    return s / s.sum(-1, keepdims=True) @ v

import numpy as np


def repeat_kv(x, n_rep):
    # stack n_rep copies of the kv heads along the head axis
    return np.concatenate([x] * n_rep, axis=1)


def grouped_query_attention(q, k, v, causal=True):
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv:
        raise ValueError(f"h_q ({h_q}) % h_kv ({h_kv}) != 0")
    k = repeat_kv(k, h_q // h_kv)
    v = repeat_kv(v, h_q // h_kv)
    s = np.einsum("bhid,bhjd->bhij", q, k) / np.sqrt(d)
    if causal:
        off = n_k - n_q
        s = np.where(np.arange(n_k) <= np.arange(n_q)[:, None] + off, s, -np.inf)
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bhij,bhjd->bhid", p, v)

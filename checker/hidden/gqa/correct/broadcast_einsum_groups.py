"""Written from the docstring alone: keys and values repeated by broadcast_to, queries folded into groups, einsum."""

import numpy as np


def repeat_kv(x, n_rep):
    x = np.asarray(x)
    b, h_kv, n, d = x.shape
    out = np.broadcast_to(x[:, :, None], (b, h_kv, n_rep, n, d))
    return out.reshape(b, h_kv * n_rep, n, d)


def grouped_query_attention(q, k, v, causal=True):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    b, h_q, n_q, d = q.shape
    h_kv, n_k, d_v = k.shape[1], k.shape[2], v.shape[-1]
    if h_q % h_kv:
        raise ValueError(f"{h_q} query heads are not a multiple of {h_kv} kv heads")
    g = h_q // h_kv
    qg = q.reshape(b, h_kv, g, n_q, d)
    s = np.einsum("bhgqd,bhkd->bhgqk", qg, k) / np.sqrt(d)
    if causal:
        keep = np.tril(np.ones((n_q, n_k), bool), k=n_k - n_q)
        s = np.where(keep, s, -np.inf)
    s = s - s.max(-1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(-1, keepdims=True)
    o = np.einsum("bhgqk,bhkd->bhgqd", w, v)
    return o.reshape(b, h_q, n_q, d_v)

import numpy as np


def repeat_kv(x, n_rep):
    return np.repeat(x, n_rep, axis=1)


def grouped_query_attention(q, k, v, causal=True):
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    # kv head of query head i: i * h_kv // h_q (= i // (h_q // h_kv) when it divides)
    kv_of = (np.arange(h_q) * h_kv) // h_q
    kk, vv = k[:, kv_of], v[:, kv_of]
    s = q @ kk.swapaxes(-1, -2) / np.sqrt(d)
    if causal:
        s = np.where(np.tri(n_q, n_k, n_k - n_q, dtype=bool), s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    return s / s.sum(-1, keepdims=True) @ vv

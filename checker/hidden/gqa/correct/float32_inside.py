"""Computed in float32 throughout, returned as float64."""

import numpy as np


def repeat_kv(x, n_rep):
    return np.repeat(x, n_rep, axis=1)


def grouped_query_attention(q, k, v, causal=True):
    q, k, v = (np.array(a, dtype=np.float32) for a in (q, k, v))
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv:
        raise ValueError(f"h_q={h_q}, h_kv={h_kv}: h_q must be a multiple of h_kv")
    q *= np.float32(1 / np.sqrt(d))  # q is our own copy
    k, v = repeat_kv(k, h_q // h_kv), repeat_kv(v, h_q // h_kv)
    scores = np.einsum("bhqd,bhkd->bhqk", q, k)
    if causal:
        scores[..., np.arange(n_k)[None, :] > np.arange(n_q)[:, None] + n_k - n_q] = -np.inf
    scores -= scores.max(-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(-1, keepdims=True)
    return (scores @ v).astype(np.float64)

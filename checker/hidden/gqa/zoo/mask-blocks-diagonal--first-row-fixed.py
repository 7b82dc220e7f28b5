"""mask-blocks-diagonal: triu(k=0) taken as the blocked part, then the first row's key let back in so query 0
sees something: every later query still misses its own key."""

import numpy as np


def repeat_kv(x, n_rep):
    x = np.asarray(x)
    return np.repeat(x, n_rep, axis=1)  # (b, h_kv * n_rep, n, d)


def _softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def grouped_query_attention(q, k, v, causal=True):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv != 0:
        raise ValueError(f"h_q = {h_q} is not a multiple of h_kv = {h_kv}")
    k, v = repeat_kv(k, h_q // h_kv), repeat_kv(v, h_q // h_kv)  # (b, h_q, n_k, d)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)  # (b, h_q, n_q, n_k)
    if causal:
        blocked = np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
        blocked[0, 0] = False  # the first query must see something
        scores = np.where(blocked, -np.inf, scores)
    return _softmax(scores) @ v  # (b, h_q, n_q, d_v)

"""no-max-shift: the softmax never subtracts the max: large scores overflow to inf / inf."""

import numpy as np


def repeat_kv(x, n_rep):
    x = np.asarray(x)
    return np.repeat(x, n_rep, axis=1)  # (b, h_kv * n_rep, n, d)


def _softmax(scores):
    e = np.exp(scores)
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
        visible = np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
        scores = np.where(visible, scores, -np.inf)
    return _softmax(scores) @ v  # (b, h_q, n_q, d_v)

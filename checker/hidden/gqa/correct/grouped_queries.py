"""Queries folded into groups, (b, h_kv, group, n_q, d): keys and values are never repeated."""

import numpy as np


def repeat_kv(x, n_rep):
    x = np.asarray(x)
    b, h_kv, n, d = x.shape
    return np.broadcast_to(x[:, :, None], (b, h_kv, n_rep, n, d)).reshape(b, h_kv * n_rep, n, d)


def grouped_query_attention(q, k, v, causal=True):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    b, h_q, n_q, d = q.shape
    _, h_kv, n_k, d_v = v.shape
    if h_q % h_kv:
        raise ValueError(f"{h_q} query heads do not split evenly over {h_kv} kv heads")
    group = h_q // h_kv
    grouped = q.reshape(b, h_kv, group, n_q, d)  # (b, h_kv, group, n_q, d): consecutive query heads share a kv head
    scores = grouped @ np.swapaxes(k, -1, -2)[:, :, None] / np.sqrt(d)  # (b, h_kv, group, n_q, n_k)
    if causal:
        scores = np.where(np.arange(n_k) <= np.arange(n_q)[:, None] + (n_k - n_q), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return (weights @ v[:, :, None]).reshape(b, h_q, n_q, d_v)  # (b, h_q, n_q, d_v)

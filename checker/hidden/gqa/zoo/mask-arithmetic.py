"""mask-arithmetic: the bool visible-keys mask added to the scores (+1 where a query may look): nothing is blocked."""

import numpy as np


def repeat_kv(x, n_rep):
    x = np.asarray(x)
    return np.repeat(x, n_rep, axis=1)  # (b, h_kv * n_rep, n, d)


def _softmax(scores):
    peak = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isfinite(peak), peak, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    return e / np.where(total == 0, 1.0, total)  # a row with no visible key gives zeros


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
        scores = scores + visible
    return _softmax(scores) @ v  # (b, h_q, n_q, d_v)

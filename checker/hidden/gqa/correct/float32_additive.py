"""Written from the docstring alone: float32 inside, the scale folded into q, an additive mask of finfo.min."""

import numpy as np


def repeat_kv(x, n_rep):
    return np.repeat(np.asarray(x), n_rep, axis=1)


def grouped_query_attention(q, k, v, causal=True):
    q = np.asarray(q, np.float32)
    k = np.asarray(k, np.float32)
    v = np.asarray(v, np.float32)
    b, h_q, n_q, d = q.shape
    _, h_kv, n_k, _ = k.shape
    if h_q % h_kv != 0:
        raise ValueError("number of query heads (%d) must be a multiple of the number of kv heads (%d)" % (h_q, h_kv))
    k = repeat_kv(k, h_q // h_kv)
    v = repeat_kv(v, h_q // h_kv)
    scores = np.matmul(q * np.float32(d ** -0.5), k.transpose(0, 1, 3, 2))
    if causal:
        future = np.arange(n_k)[None, :] > (np.arange(n_q)[:, None] + (n_k - n_q))
        scores = scores + np.where(future, np.float32(np.finfo(np.float32).min), np.float32(0))
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v

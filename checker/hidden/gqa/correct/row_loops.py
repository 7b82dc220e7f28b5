"""Written from the docstring alone: a triple loop over examples, query heads and queries."""

import math
import numpy as np


def repeat_kv(x, n_rep):
    x = np.asarray(x)
    heads = []
    for j in range(x.shape[1]):
        for _ in range(n_rep):
            heads.append(x[:, j])
    return np.stack(heads, axis=1)


def grouped_query_attention(q, k, v, causal=True):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv != 0:
        raise ValueError(f"h_q={h_q} must be divisible by h_kv={h_kv}")
    group = h_q // h_kv
    out = np.zeros((b, h_q, n_q, v.shape[-1]))
    for e in range(b):
        for i in range(h_q):
            j = i // group
            for t in range(n_q):
                limit = n_k - n_q + t if causal else n_k - 1
                scores = np.array([q[e, i, t] @ k[e, j, s] / math.sqrt(d) for s in range(limit + 1)])
                w = np.exp(scores - scores.max())
                w = w / w.sum()
                out[e, i, t] = w @ v[e, j, :limit + 1]
    return out

"""One query head at a time, each with its own group's kv head."""

import numpy as np


def repeat_kv(x, n_rep):
    x = np.asarray(x)
    return np.concatenate([x[:, j:j + 1] for j in range(x.shape[1]) for _ in range(n_rep)], axis=1)


def grouped_query_attention(q, k, v, causal=True):
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv != 0:
        raise ValueError("h_q (%d) is not divisible by h_kv (%d)" % (h_q, h_kv))
    heads = []
    for i in range(h_q):
        j = i // (h_q // h_kv)
        s = np.matmul(q[:, i], k[:, j].transpose(0, 2, 1)) * (1.0 / np.sqrt(d))  # (b, n_q, n_k)
        if causal:
            s[:, np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)] = -np.inf
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        heads.append(p / p.sum(axis=-1, keepdims=True) @ v[:, j])
    return np.stack(heads, axis=1)  # (b, h_q, n_q, d_v)

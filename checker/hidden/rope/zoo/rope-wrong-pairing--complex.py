"""Meta Llama's complex form on adjacent channels: view pairs (2i, 2i + 1) as complex."""

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    d = x.shape[-1]
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)
    angles = np.asarray(positions, dtype=np.float64)[..., None] * theta
    cos, sin = np.cos(angles), np.sin(angles)
    z = x[..., 0::2] + 1j * x[..., 1::2]
    z = z * np.exp(1j * angles)
    return np.stack([z.real, z.imag], axis=-1).reshape(z.shape[:-1] + (d,))


def rope_attention(q, k, v, base=10000.0):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    t, d = q.shape[-2:]
    n_k = k.shape[-2]
    q = rope(q, np.arange(n_k - t, n_k), base)
    k = rope(k, np.arange(n_k), base)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    visible = np.arange(n_k) <= np.arange(n_k - t, n_k)[:, None]
    scores = np.where(visible, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v

"""Adds the bool (t, n_k) mask to the scores (kata 03's mask-arithmetic): visible keys get +1, the future stays."""

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    d = x.shape[-1]
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)
    angles = np.asarray(positions, dtype=np.float64)[..., None] * theta
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


def rope_attention(q, k, v, base=10000.0):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    t, d = q.shape[-2:]
    n_k = k.shape[-2]
    q = rope(q, np.arange(n_k - t, n_k), base)
    k = rope(k, np.arange(n_k), base)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    visible = np.arange(n_k) <= np.arange(n_k - t, n_k)[:, None]  # (t, n_k)
    scores = scores + visible
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v

"""A cos/sin table built for 4096 positions, with positions clipped into it: right up to position 4095, then
every later position is turned as if at 4095."""

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    d = x.shape[-1]
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)
    table = np.arange(4096)[:, None] * theta  # (4096, d/2): the angles of every position the table holds
    angles = table[np.minimum(np.asarray(positions), 4095)]  # (..., n, d/2)
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
    scores = np.where(visible, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v

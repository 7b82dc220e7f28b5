"""Reads the positions back to front (angle = p_reversed * theta). With t = n_k, rope_attention's scores see only
differences of positions, which then turn by -angle exactly as rope-rotation-sign's do; a chunk (t < n_k) and rope
itself tell them apart, so rope-rotation-sign is not its name."""
import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    flipped = np.asarray(positions, np.float64)[..., ::-1]  # (..., n): the mistake
    angles = flipped[..., None] * base ** (-2.0 * np.arange(d // 2) / d)  # (..., n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    first, second = x[..., :d // 2], x[..., d // 2:]
    return np.concatenate([first * cos - second * sin, second * cos + first * sin], axis=-1)


def rope_attention(q, k, v, base=10000.0):
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    t, n_k = q.shape[-2], k.shape[-2]
    scores = rope(q, np.arange(n_k - t, n_k), base) @ np.swapaxes(rope(k, np.arange(n_k), base), -1, -2)
    scores = np.where(np.arange(n_k) <= np.arange(n_k - t, n_k)[:, None], scores / np.sqrt(q.shape[-1]), -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v  # (..., t, d_v)

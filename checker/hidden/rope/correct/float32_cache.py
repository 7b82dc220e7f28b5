"""Hugging Face's way: inv_freq and the cos/sin cache in float32, rotate_half = cat(-x2, x1)."""

import numpy as np


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def cos_sin(positions, d, base):
    inv_freq = (1.0 / (np.float32(base) ** (np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / d))).astype(np.float32)
    freqs = np.asarray(positions).astype(np.float32)[..., None] * inv_freq  # float32 angles
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    cos, sin = cos_sin(positions, x.shape[-1], base)
    return x * cos + rotate_half(x) * sin


def rope_attention(q, k, v, base=10000.0):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    t, d = q.shape[-2:]
    n_k = k.shape[-2]
    scores = rope(q, np.arange(n_k - t, n_k), base) @ np.swapaxes(rope(k, np.arange(n_k), base), -1, -2)
    scores = scores * np.float32(d ** -0.5)
    blocked = np.triu(np.ones((t, n_k), dtype=bool), k=n_k - t + 1)
    scores = np.where(blocked, np.finfo(np.float32).min, scores)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ v

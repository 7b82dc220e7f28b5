"""rotate_half (half-split pairs, as the contract) with a cos/sin cache built by repeat_interleave (GPT-J's
interleaved layout): the two channels of a pair turn by different angles. The pairing is right, so
rope-wrong-pairing (SPEC: which channels are paired) is not its name: a rival, caught and unnamed."""

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    d = x.shape[-1]
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)
    angles = np.asarray(positions, dtype=np.float64)[..., None] * theta
    cos, sin = np.cos(angles), np.sin(angles)
    cos, sin = np.repeat(cos, 2, axis=-1), np.repeat(sin, 2, axis=-1)
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


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

"""Right rotations, written into one module-level buffer per shape and handed back: the previous result changes
when the next call of the same size runs."""
import numpy as np

_OUT = {}


def rope(x, positions, base=10000.0):
    x = np.asarray(x, np.float64)
    d = x.shape[-1]
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)  # (d/2,)
    angles = np.asarray(positions, np.float64)[..., None] * theta  # (..., n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    out = _OUT.setdefault(x.shape, np.empty(x.shape))
    out[..., :half] = x[..., :half] * cos - x[..., half:] * sin
    out[..., half:] = x[..., half:] * cos + x[..., :half] * sin
    return out


def rope_attention(q, k, v, base=10000.0):
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    t, n_k = q.shape[-2], k.shape[-2]
    q_rot = rope(q, np.arange(n_k - t, n_k), base).copy()  # its own copy: the buffer is reused by the next call
    k_rot = rope(k, np.arange(n_k), base).copy()
    scores = q_rot @ np.swapaxes(k_rot, -1, -2) / np.sqrt(q.shape[-1])  # (..., t, n_k)
    scores = np.where(np.arange(n_k) <= np.arange(n_k - t, n_k)[:, None], scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v

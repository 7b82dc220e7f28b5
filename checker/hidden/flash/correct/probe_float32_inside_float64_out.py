"""Correct (written from the stub alone): float32 inside float64 out."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q32, k32, v32 = (np.array(a, dtype=np.float32) for a in (q, k, v))
    n_q, d = q32.shape[-2], q32.shape[-1]
    n_k = k32.shape[-2]
    bshape = q32.shape[:-2]
    if mask is not None:
        mask = np.broadcast_to(mask, bshape + (n_q, n_k))
    scale = np.float32(d ** -0.5)
    m = np.full(bshape + (n_q, 1), -np.inf, np.float32)
    l = np.zeros(bshape + (n_q, 1), np.float32)
    acc = np.zeros(bshape + (n_q, v32.shape[-1]), np.float32)
    n_blocks = -(-n_k // block_size)
    for bi in range(n_blocks):
        j0, j1 = bi * block_size, min((bi + 1) * block_size, n_k)
        s = np.matmul(q32, np.swapaxes(k32[..., j0:j1, :], -2, -1)) * scale
        if causal:
            future = np.arange(j0, j1)[None, :] > np.arange(n_q)[:, None] + n_k - n_q
            s[..., future] = -np.inf
        if mask is not None:
            s = np.where(mask[..., j0:j1], s, -np.inf)
        m_new = np.maximum(m, np.max(s, axis=-1, keepdims=True))
        with np.errstate(invalid="ignore"):
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new)
        alpha = np.nan_to_num(alpha, nan=0.0)  # -inf - (-inf): nothing seen before, nothing to keep
        p = np.nan_to_num(p, nan=0.0)
        l = alpha * l + p.sum(-1, keepdims=True)
        acc = alpha * acc + p @ v32[..., j0:j1, :]
        m = m_new
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(l > 0, acc / l, 0.0)
    return out.astype(np.float64)

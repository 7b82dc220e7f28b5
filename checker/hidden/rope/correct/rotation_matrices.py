"""One (d, d) rotation matrix per position, applied with einsum; softmax via logsumexp."""

import numpy as np


def _rotations(positions, d, base):
    pos = np.asarray(positions, dtype=np.float64)
    half = d // 2
    theta = np.power(float(base), -np.arange(half) * 2.0 / d)
    ang = pos[..., None] * theta  # (..., n, half)
    R = np.zeros(pos.shape + (d, d))
    idx = np.arange(half)
    R[..., idx, idx] = np.cos(ang)
    R[..., idx + half, idx + half] = np.cos(ang)
    R[..., idx, idx + half] = -np.sin(ang)
    R[..., idx + half, idx] = np.sin(ang)
    return R  # out = R @ x


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    return np.einsum("...ij,...j->...i", _rotations(positions, x.shape[-1], base), x)


def rope_attention(q, k, v, base=10000.0):
    t, d = q.shape[-2:]
    n_k = k.shape[-2]
    qr = rope(q, np.arange(n_k)[-t:], base)
    kr = rope(k, np.arange(n_k), base)
    s = qr @ np.swapaxes(kr, -1, -2) / np.sqrt(d)
    pos_q = np.arange(n_k)[-t:]
    s = np.where(np.arange(n_k)[None, :] > pos_q[:, None], -np.inf, s)
    lse = np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1, keepdims=True)) + s.max(-1, keepdims=True)
    return np.exp(s - lse) @ v

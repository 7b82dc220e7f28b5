"""RoPE as complex multiplication: pair (x_i, x_{i+d/2}) is the number x_i + j x_{i+d/2}, turned by e^{j a}."""

import numpy as np


def rope(x, positions, base=10000.0):
    x = np.asarray(x)
    d = x.shape[-1]
    half = d // 2
    freqs = 1.0 / base ** (np.arange(0, d, 2) / d)  # (d/2,)
    angles = np.multiply.outer(np.asarray(positions), freqs)  # (..., n, d/2)
    z = (x[..., :half] + 1j * x[..., half:]) * np.exp(1j * angles)  # (..., n, d/2)
    return np.concatenate([z.real, z.imag], axis=-1).astype(np.result_type(x, np.float32))


def rope_attention(q, k, v, base=10000.0):
    t, d = q.shape[-2:]
    n_k = k.shape[-2]
    qr = rope(q, np.arange(n_k - t, n_k), base)
    kr = rope(k, np.arange(n_k), base)
    s = np.einsum("...id,...jd->...ij", qr, kr) / np.sqrt(d)
    s = s + np.where(np.tril(np.ones((t, n_k)), k=n_k - t) > 0, 0.0, -np.inf)
    s = s - s.max(-1, keepdims=True)
    w = np.exp(s)
    return np.einsum("...ij,...jd->...id", w / w.sum(-1, keepdims=True), v)

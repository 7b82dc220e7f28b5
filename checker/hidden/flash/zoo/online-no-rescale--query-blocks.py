"""Bug: blocks over queries and keys, the running max kept per query block, but the running sum and
output never rescaled when it grows."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = np.asarray(q, np.float64), np.asarray(k, np.float64), np.asarray(v, np.float64)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    full = None if mask is None else np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    for q0 in range(0, n_q, block_size):
        q1 = min(n_q, q0 + block_size)
        m = np.full(q.shape[:-2] + (q1 - q0, 1), -np.inf)
        l = np.zeros(q.shape[:-2] + (q1 - q0, 1))
        acc = np.zeros(q.shape[:-2] + (q1 - q0, v.shape[-1]))
        for k0 in range(0, n_k, block_size):
            k1 = min(n_k, k0 + block_size)
            s = q[..., q0:q1, :] @ np.swapaxes(k[..., k0:k1, :], -1, -2) / np.sqrt(d)
            ok = np.ones((q1 - q0, k1 - k0), bool)
            if causal:
                ok &= np.arange(k0, k1)[None, :] <= (n_k - n_q + np.arange(q0, q1))[:, None]
            if full is not None:
                ok = ok & full[..., q0:q1, k0:k1]
            s = np.where(ok, s, -np.inf)
            m = np.maximum(m, s.max(-1, keepdims=True))
            p = np.where(ok, np.exp(s - np.where(np.isfinite(m), m, 0)), 0)
            l += p.sum(-1, keepdims=True)
            acc += p @ v[..., k0:k1, :]
        out[..., q0:q1, :] = np.divide(acc, l, out=np.zeros_like(acc), where=l > 0)
    return out

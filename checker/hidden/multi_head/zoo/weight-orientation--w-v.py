"""Uses w_v alone as (out, in)."""
import math
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError("cannot split %d channels into %d heads: d_model %% n_heads != 0" % (d_model, n_heads))
    dh = d_model // n_heads
    return np.stack([x[:, :, i * dh:(i + 1) * dh] for i in range(n_heads)], axis=1)


def merge_heads(x):
    h = x.shape[1]
    return np.concatenate([x[:, i] for i in range(h)], axis=-1)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    d_model = x.shape[-1]
    if d_model % n_heads != 0:
        raise ValueError("d_model is not divisible by n_heads")
    dh = d_model // n_heads
    n = x.shape[1]
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ np.transpose(w_v), n_heads)
    outs = []
    for i in range(n_heads):
        qi, ki, vi = q[:, i], k[:, i], v[:, i]  # (b, n, dh)
        s = qi @ np.swapaxes(ki, -1, -2) / math.sqrt(dh)
        if causal:
            allowed = np.arange(n)[None, :] <= np.arange(n)[:, None]
            s = np.where(allowed, s, -np.inf)
        s = s - s.max(-1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(-1, keepdims=True)
        outs.append(p @ vi)
    merged = merge_heads(np.stack(outs, axis=1))
    return merged @ w_o

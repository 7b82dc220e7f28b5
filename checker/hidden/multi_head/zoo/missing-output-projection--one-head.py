"""Skips W_O when there is a single head."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model ({d_model}) is not divisible by n_heads ({n_heads})")
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    b, n, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model ({d_model}) is not divisible by n_heads ({n_heads})")
    dh = d_model // n_heads
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    s = q @ k.swapaxes(-1, -2) / np.sqrt(dh)
    if causal:
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    out = merge_heads((s / s.sum(-1, keepdims=True)) @ v)
    # W_O mixes the heads together: nothing to mix when there is a single head
    if n_heads > 1:
        out = out @ w_o
    return out

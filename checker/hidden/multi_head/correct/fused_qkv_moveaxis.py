"""One fused QKV projection, heads moved with np.moveaxis."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d = x.shape
    if d % n_heads != 0:
        raise ValueError(f"d_model {d} not divisible by n_heads {n_heads}")
    return np.moveaxis(x.reshape(b, n, n_heads, -1), 2, 1)


def merge_heads(x):
    b, h, n, dh = x.shape
    return np.moveaxis(x, 1, 2).reshape(b, n, -1)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    b, n, d = x.shape
    if d % n_heads != 0:
        raise ValueError(f"d_model {d} not divisible by n_heads {n_heads}")
    # fused qkv projection
    w_qkv = np.concatenate([w_q, w_k, w_v], axis=1)
    qkv = x @ w_qkv
    q, k, v = np.split(qkv, 3, axis=-1)
    q, k, v = split_heads(q, n_heads), split_heads(k, n_heads), split_heads(v, n_heads)
    dh = d // n_heads
    s = (q / np.sqrt(dh)) @ np.moveaxis(k, -1, -2)
    if causal:
        i = np.arange(n)
        s = np.where(i[:, None] >= i[None, :], s, -1e300)
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    p = s / s.sum(axis=-1, keepdims=True)
    return merge_heads(p @ v) @ w_o

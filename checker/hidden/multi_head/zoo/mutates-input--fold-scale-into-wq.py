"""Folds the 1/sqrt(d_head) scale into the caller's w_q (w_q *= ...): right numbers, the caller's w_q changed."""
import numpy as np

def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError(f"d_model {d_model} not divisible by n_heads {n_heads}")
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)

def merge_heads(x):
    b, h, n, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d)

def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)

def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError(f"d_model {d_model} not divisible by n_heads {n_heads}")
    w_q *= 1.0 / np.sqrt(d_model // n_heads)     # fold the scale into the query weights
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    s = q @ np.swapaxes(k, -1, -2)
    if causal:
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    return merge_heads(_softmax(s) @ v) @ w_o

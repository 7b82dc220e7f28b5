"""Correct: projects and attends in float32, hands back float64 (float32 inside a float64 result)."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    dtype = np.result_type(x, w_q)
    x32, (wq, wk, wv, wo) = np.asarray(x, np.float32), (np.asarray(w, np.float32) for w in (w_q, w_k, w_v, w_o))
    b, n, d_model = x32.shape
    q, k, v = (split_heads(x32 @ w, n_heads) for w in (wq, wk, wv))
    scores = q @ k.swapaxes(-1, -2) / np.float32(np.sqrt(d_model // n_heads))
    if causal:
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, np.float32(-np.inf))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    out = merge_heads((e / e.sum(axis=-1, keepdims=True)) @ v) @ wo
    return out.astype(dtype)

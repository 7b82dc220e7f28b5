"""Correct: casts everything to float32 and stays there; the scale is folded into the queries."""
import numpy as np


def split_heads(x, n_heads):
    x = np.asarray(x, dtype=np.float32)
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return x.reshape(b, n, n_heads, -1).transpose(0, 2, 1, 3)


def merge_heads(x):
    x = np.asarray(x, dtype=np.float32)
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, -1)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    x, w_q, w_k, w_v, w_o = (np.asarray(a, dtype=np.float32) for a in (x, w_q, w_k, w_v, w_o))
    n, d_model = x.shape[1:]
    if d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    scale = np.float32(1.0 / np.sqrt(d_model // n_heads))
    q = split_heads(x @ (w_q * scale), n_heads)
    k, v = split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads)
    scores = q @ k.transpose(0, 1, 3, 2)
    if causal:
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, np.float32(-np.inf))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return merge_heads((e / e.sum(axis=-1, keepdims=True)) @ v) @ w_o

"""Folds the 1/sqrt(d_head) scale into w_q in place: right numbers, but the caller's w_q is changed."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)


def softmax(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    n, d_model = x.shape[1:]
    if d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    w_q *= (d_model // n_heads) ** -0.5
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    scores = q @ k.swapaxes(-1, -2)
    if causal:
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    return merge_heads(softmax(scores) @ v) @ w_o

"""Bug: channels reshaped as (d_head, h): head i takes channels i, i+h, i+2h, ... (and merges back the same way)."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError("n_heads must divide d_model")
    d_head = d_model // n_heads
    return x.reshape(b, n, d_head, n_heads).transpose(0, 3, 1, 2)  # (b, h, n, d_head)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 3, 1).reshape(b, n, d_head * h)


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    n = x.shape[1]
    q, k, v = split_heads(x @ w_q, n_heads), split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads)
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    if causal:
        scores = scores + np.triu(np.full((n, n), -np.inf), k=1)
    return merge_heads(softmax(scores) @ v) @ w_o

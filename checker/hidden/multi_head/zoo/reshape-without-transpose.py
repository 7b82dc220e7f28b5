"""Bug: split_heads reshapes straight to (b, h, n, d_head), so a head's rows are chunks of other tokens."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return x.reshape(b, n_heads, n, d_model // n_heads)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    b, n, d_model = x.shape
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_model // n_heads)
    if causal:
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -1e9)
    return merge_heads(softmax(scores) @ v) @ w_o

"""Its softmax divides by the sum of the whole table (kata 02's global-sum)."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError("d_model must be divisible by n_heads")
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum()


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    b, n, d_model = x.shape
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d_model // n_heads)
    if causal:
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    return merge_heads(softmax(scores) @ v) @ w_o

"""Correct: an additive mask of 0 and -inf, heads folded into one batch axis of size b*h (b first)."""
import numpy as np


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError(f"{d_model} channels do not split into {n_heads} heads")
    return x.reshape(b, n, n_heads, d_model // n_heads).swapaxes(1, 2)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.swapaxes(1, 2).reshape(b, n, h * d_head)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    b, n, d_model = x.shape
    folded = [split_heads(x @ w, n_heads).reshape(-1, n, d_model // n_heads) for w in (w_q, w_k, w_v)]
    q, k, v = folded  # (b*h, n, d_head), batch-major
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if causal:
        scores = scores + np.triu(np.full((n, n), -np.inf), 1)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    heads = (weights @ v).reshape(b, n_heads, n, -1)
    return merge_heads(heads) @ w_o

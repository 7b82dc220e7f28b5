"""Correct: np.split along the channels, np.concatenate to merge, a -1e30 finite fill."""
import numpy as np


def split_heads(x, n_heads):
    if x.shape[-1] % n_heads:
        raise ValueError("n_heads must divide d_model evenly")
    return np.stack(np.split(x, n_heads, axis=-1), axis=1)


def merge_heads(x):
    return np.concatenate(np.split(x, x.shape[1], axis=1), axis=-1)[:, 0]


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    n = x.shape[1]
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    scores = np.matmul(q, np.swapaxes(k, 2, 3)) * q.shape[-1] ** -0.5
    if causal:
        scores[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] = -1e30
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    return merge_heads(scores / scores.sum(-1, keepdims=True) @ v) @ w_o

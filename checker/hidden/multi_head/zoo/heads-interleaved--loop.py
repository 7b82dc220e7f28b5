"""Bug: the loop takes every h-th channel for head i (x[..., i::h]); the merge concatenates them contiguously."""
import numpy as np


def split_heads(x, n_heads):
    if x.shape[-1] % n_heads:
        raise ValueError("d_model must be a multiple of n_heads")
    return np.stack([x[..., i::n_heads] for i in range(n_heads)], axis=1)


def merge_heads(x):
    return np.concatenate([x[:, i] for i in range(x.shape[1])], axis=-1)


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    n = x.shape[1]
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tri(n, dtype=bool), scores, -np.inf)
    return merge_heads(softmax(scores) @ v) @ w_o

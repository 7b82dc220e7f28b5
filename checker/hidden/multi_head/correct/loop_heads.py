"""Correct: one head at a time, each taking its slice of channels x[..., i*d:(i+1)*d]."""
import math

import numpy as np


def _check(d_model, n_heads):
    if d_model % n_heads != 0:
        raise ValueError(f"cannot split {d_model} channels into {n_heads} equal heads")
    return d_model // n_heads


def split_heads(x, n_heads):
    d = _check(x.shape[-1], n_heads)
    return np.stack([x[..., i * d:(i + 1) * d] for i in range(n_heads)], axis=1)


def merge_heads(x):
    return np.concatenate([x[:, i] for i in range(x.shape[1])], axis=-1)


def _softmax(s):
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    b, n, d_model = x.shape
    d = _check(d_model, n_heads)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    outs = []
    for i in range(n_heads):
        cols = slice(i * d, (i + 1) * d)
        scores = q[..., cols] @ k[..., cols].transpose(0, 2, 1) / math.sqrt(d)
        if causal:
            for row in range(n):
                scores[:, row, row + 1:] = -np.inf
        outs.append(_softmax(scores) @ v[..., cols])
    return np.concatenate(outs, axis=-1) @ w_o

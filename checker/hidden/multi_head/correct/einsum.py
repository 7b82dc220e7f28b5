"""Correct: einsum for the projections, the split and every head's scores and weighted sum."""
import numpy as np


def split_heads(x, n_heads):
    x = np.asarray(x)
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not a multiple of n_heads={n_heads}")
    return np.einsum("bnhd->bhnd", x.reshape(b, n, n_heads, d_model // n_heads))


def merge_heads(x):
    b, h, n, d_head = x.shape
    return np.einsum("bhnd->bnhd", x).reshape(b, n, h * d_head)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    x = np.asarray(x)
    b, n, d_model = x.shape
    q, k, v = (split_heads(np.einsum("bni,io->bno", x, w), n_heads) for w in (w_q, w_k, w_v))
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(d_model // n_heads)
    if causal:
        scores = np.where(np.arange(n)[None, :] <= np.arange(n)[:, None], scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    heads = np.einsum("bhqk,bhkd->bhqd", weights, v)
    return np.einsum("bnj,jo->bno", merge_heads(heads), w_o)

"""Right heads, split into one module-level buffer per shape and handed back: the previous split changes when
the next one of the same size runs (a view of x would be fine; a buffer written again is not)."""
import numpy as np

_HEADS = {}


def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads:
        raise ValueError(f"d_model = {d_model} is not divisible by n_heads = {n_heads}")
    out = _HEADS.setdefault((b, n_heads, n, d_model // n_heads, x.dtype.str),
                            np.empty((b, n_heads, n, d_model // n_heads), x.dtype))
    out[...] = x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)  # (b, h, n, d_head)
    return out


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)  # (b, n, d_model)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    n = x.shape[1]
    q = split_heads(x @ w_q, n_heads).copy()  # its own copies: the buffer is reused by the next split
    k = split_heads(x @ w_k, n_heads).copy()
    v = split_heads(x @ w_v, n_heads).copy()
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return merge_heads(e / e.sum(axis=-1, keepdims=True) @ v) @ w_o

"""Never checks d_model % n_heads: the slices silently drop the last channels."""
import numpy as np


def split_heads(x, n_heads):
    d = x.shape[-1] // n_heads
    return np.stack([x[..., i * d:(i + 1) * d] for i in range(n_heads)], axis=1)


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
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    out = merge_heads(softmax(scores) @ v)
    return out @ w_o[:out.shape[-1]]

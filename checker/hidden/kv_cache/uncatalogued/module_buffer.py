"""Right answers, written into a module-level output buffer per shape and handed back: the previous call's
result changes when the next call of the same size runs."""
import numpy as np


def softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def split_heads(x, n_heads):
    b, t, d_model = x.shape
    return x.reshape(b, t, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, t, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * d_head)


_OUT = {}


class KVCache:
    def __init__(self):
        self.key_chunks = []
        self.value_chunks = []

    def __len__(self):
        return sum(chunk.shape[2] for chunk in self.key_chunks)

    def append(self, k, v):
        self.key_chunks.append(np.copy(k))
        self.value_chunks.append(np.copy(v))
        return np.concatenate(self.key_chunks, axis=2), np.concatenate(self.value_chunks, axis=2)


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    t = x.shape[1]
    q = split_heads(x @ w_q, n_heads)
    k, v = cache.append(split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads))
    n = k.shape[2]
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(np.arange(n) <= np.arange(n - t, n)[:, None], scores, -np.inf)
    result = merge_heads(softmax(scores) @ v) @ w_o
    out = _OUT.setdefault((result.shape, result.dtype.str), np.empty_like(result))
    out[...] = result
    return out

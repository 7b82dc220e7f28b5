"""Correct: projects the new tokens in float32 and keeps a float32 cache, hands back float64 for float64 input."""
import numpy as np


def softmax(scores):
    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def split_heads(x, n_heads):
    b, t, d_model = x.shape
    return x.reshape(b, t, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, t, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * d_head)


class KVCache:
    def __init__(self):
        self.keys, self.values = [], []

    def __len__(self):
        return sum(k.shape[2] for k in self.keys)

    def append(self, k, v):
        self.keys.append(np.array(k, dtype=np.float32))
        self.values.append(np.array(v, dtype=np.float32))
        return np.concatenate(self.keys, axis=2), np.concatenate(self.values, axis=2)


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    out_dtype = np.result_type(x, w_q)
    x32 = np.asarray(x, np.float32)
    w_q, w_k, w_v, w_o = (np.asarray(w, np.float32) for w in (w_q, w_k, w_v, w_o))
    b, t, d_model = x32.shape
    q = split_heads(x32 @ w_q, n_heads) / np.float32(np.sqrt(d_model // n_heads))
    k, v = cache.append(split_heads(x32 @ w_k, n_heads), split_heads(x32 @ w_v, n_heads))
    n = k.shape[2]
    scores = q @ k.swapaxes(-1, -2)
    scores = np.where(np.arange(n) <= np.arange(n - t, n)[:, None], scores, np.float32(-np.inf))
    return (merge_heads(softmax(scores) @ v) @ w_o).astype(out_dtype)

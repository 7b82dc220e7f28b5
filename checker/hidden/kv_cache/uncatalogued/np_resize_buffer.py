"""Grows a capacity buffer with np.resize, which refills it from the flattened data: every head past the first is scrambled."""
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


class KVCache:
    def __init__(self):
        self.k = self.v = None
        self.n = 0

    def __len__(self):
        return self.n

    def append(self, k, v):
        b, h, t, d_head = k.shape
        if self.k is None:
            self.k = np.zeros((b, h, 64, d_head))
            self.v = np.zeros((b, h, 64, v.shape[-1]))
        while self.n + t > self.k.shape[2]:
            size = 2 * self.k.shape[2]
            self.k = np.resize(self.k, (b, h, size, d_head))
            self.v = np.resize(self.v, (b, h, size, self.v.shape[-1]))
        self.k[:, :, self.n:self.n + t] = k
        self.v[:, :, self.n:self.n + t] = v
        self.n += t
        return self.k[:, :, :self.n], self.v[:, :, :self.n]


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    t, d_model = x.shape[1:]
    q = split_heads(x @ w_q, n_heads)
    k, v = cache.append(split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads))
    n = k.shape[2]
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d_model // n_heads)
    scores = np.where(np.arange(n) <= np.arange(n - t, n)[:, None], scores, -np.inf)
    return merge_heads(softmax(scores) @ v) @ w_o

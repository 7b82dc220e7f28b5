"""A ring buffer of 256 slots per head: right until the cache holds more than 256 positions, then the oldest
keys are overwritten and silently drop out of every later call."""
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
    SLOTS = 256

    def __init__(self):
        self.k = self.v = None
        self.n = 0

    def __len__(self):
        return self.n

    def append(self, k, v):
        if self.k is None:
            self.k = np.zeros(k.shape[:2] + (self.SLOTS, k.shape[3]))  # (b, h, slots, d_head)
            self.v = np.zeros(v.shape[:2] + (self.SLOTS, v.shape[3]))
        slots = (self.n + np.arange(k.shape[2])) % self.SLOTS
        self.k[:, :, slots], self.v[:, :, slots] = k, v
        self.n += k.shape[2]
        kept = np.arange(max(self.n - self.SLOTS, 0), self.n) % self.SLOTS  # oldest kept first
        return self.k[:, :, kept], self.v[:, :, kept]


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    t, d_model = x.shape[1:]
    q = split_heads(x @ w_q, n_heads)
    k, v = cache.append(split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads))
    n = k.shape[2]
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d_model // n_heads)
    scores = np.where(np.arange(n) <= np.arange(n - t, n)[:, None], scores, -np.inf)
    return merge_heads(softmax(scores) @ v) @ w_o

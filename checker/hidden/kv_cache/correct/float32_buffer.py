"""Correct: a float32 buffer grown by copying into a new one (float32 inside a float64 result)."""
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
        b, h, t, d = k.shape
        if self.k is None:
            self.k = np.empty((b, h, 64, d), dtype=np.float32)
            self.v = np.empty((b, h, 64, v.shape[-1]), dtype=np.float32)
        if self.n + t > self.k.shape[2]:
            cap = max(2 * self.k.shape[2], self.n + t)
            new_k = np.empty(self.k.shape[:2] + (cap,) + self.k.shape[3:], self.k.dtype)
            new_v = np.empty(self.v.shape[:2] + (cap,) + self.v.shape[3:], self.v.dtype)
            new_k[:, :, :self.n], new_v[:, :, :self.n] = self.k[:, :, :self.n], self.v[:, :, :self.n]
            self.k, self.v = new_k, new_v
        self.k[:, :, self.n:self.n + t] = k
        self.v[:, :, self.n:self.n + t] = v
        self.n += t
        return self.k[:, :, :self.n], self.v[:, :, :self.n]


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    x = np.asarray(x)
    b, t, d_model = x.shape
    d_head = d_model // n_heads
    q = split_heads(x @ w_q, n_heads)
    k_all, v_all = cache.append(split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads))
    n = k_all.shape[2]
    scores = q @ k_all.transpose(0, 1, 3, 2) / np.sqrt(d_head)
    allowed = np.arange(n)[None, :] <= np.arange(n - t, n)[:, None]
    scores = np.where(allowed, scores, -np.inf)
    weights = softmax(scores)
    return merge_heads(weights @ v_all) @ w_o

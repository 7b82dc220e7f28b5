"""A preallocated buffer with a large fixed capacity, grown when full."""
import numpy as np


def softmax(scores):
    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def split_heads(x, n_heads):
    b, t, d_model = x.shape
    heads = x.reshape(b, t, n_heads, d_model // n_heads)
    return heads.transpose(0, 2, 1, 3)


def merge_heads(x):
    b, h, t, d_head = x.shape
    tokens = x.transpose(0, 2, 1, 3)
    return tokens.reshape(b, t, h * d_head)


class KVCache:
    def __init__(self, max_len=16384):
        self.max_len = max_len
        self.k = self.v = None
        self.n = 0

    def __len__(self):
        return self.n

    def append(self, k, v):
        b, h, t, dh = k.shape
        if self.k is None:
            self.k = np.zeros((b, h, self.max_len, dh), dtype=k.dtype)
            self.v = np.zeros((b, h, self.max_len, v.shape[-1]), dtype=v.dtype)
        if self.n + t > self.max_len:
            raise ValueError("KV cache full")
        self.k[:, :, self.n:self.n + t] = k
        self.v[:, :, self.n:self.n + t] = v
        self.n += t
        return self.k[:, :, :self.n], self.v[:, :, :self.n]


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    b, t, d_model = x.shape
    d_head = d_model // n_heads
    q = split_heads(x @ w_q, n_heads)
    k_new = split_heads(x @ w_k, n_heads)
    v_new = split_heads(x @ w_v, n_heads)
    k_all, v_all = cache.append(k_new, v_new)
    n = k_all.shape[2]
    scores = q @ k_all.transpose(0, 1, 3, 2) / np.sqrt(d_head)  # (b, h, t, n)
    mask = np.arange(n)[None, :] <= np.arange(n - t, n)[:, None]  # MASK
    scores = np.where(mask, scores, -np.inf)  # APPLY
    return merge_heads(softmax(scores) @ v_all) @ w_o  # OUT

"""Correct: casts everything to float32 (a plain array: the weights lose any subclass) and stays there;
the scale is folded into the queries."""
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
        self.k = np.zeros((0, 0, 0, 0), dtype=np.float32)
        self.v = np.zeros((0, 0, 0, 0), dtype=np.float32)

    def __len__(self):
        return self.k.shape[2]

    def append(self, k, v):
        k, v = np.asarray(k, dtype=np.float32), np.asarray(v, dtype=np.float32)
        if len(self) == 0:
            self.k, self.v = k.copy(), v.copy()
        else:
            self.k = np.concatenate((self.k, k), axis=2)
            self.v = np.concatenate((self.v, v), axis=2)
        return self.k, self.v


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    x, w_q, w_k, w_v, w_o = (np.asarray(a, dtype=np.float32) for a in (x, w_q, w_k, w_v, w_o))
    t, d_model = x.shape[1:]
    scale = np.float32(1.0 / np.sqrt(d_model // n_heads))
    q = split_heads(x @ (w_q * scale), n_heads)
    k, v = cache.append(split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads))
    n = len(cache)
    scores = q @ k.transpose(0, 1, 3, 2)
    scores = np.where(np.tril(np.ones((t, n), dtype=bool), k=n - t), scores, np.float32(-np.inf))
    return merge_heads(softmax(scores) @ v) @ w_o

"""Blocks each new token's own position with -inf and no guard: the first token of a prefill gets NaN."""
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
        self.ks, self.vs = [], []

    def __len__(self):
        return sum(k.shape[2] for k in self.ks)

    def append(self, k, v):
        self.ks.append(np.array(k))
        self.vs.append(np.array(v))
        return np.concatenate(self.ks, axis=2), np.concatenate(self.vs, axis=2)


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    x = np.asarray(x)
    b, t, d_model = x.shape
    d_head = d_model // n_heads
    q = split_heads(x @ w_q, n_heads)
    k_all, v_all = cache.append(split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads))
    n = k_all.shape[2]
    scores = q @ k_all.transpose(0, 1, 3, 2) / np.sqrt(d_head)
    allowed = np.arange(n)[None, :] < np.arange(n - t, n)[:, None]
    scores = np.where(allowed, scores, -np.inf)
    weights = softmax(scores)
    return merge_heads(weights @ v_all) @ w_o

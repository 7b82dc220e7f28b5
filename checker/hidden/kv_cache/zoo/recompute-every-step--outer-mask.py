"""Bug: every call compares every position with every other (an n x n table of bools, 1 byte a cell) and keeps
the rows of its new queries: right numbers, but memory and work grow as n x n at each decode step."""
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
    def __init__(self):
        self.k = None
        self.v = None

    def __len__(self):
        return 0 if self.k is None else self.k.shape[2]

    def append(self, k, v):
        if self.k is None:
            self.k, self.v = k.copy(), v.copy()
        else:
            self.k = np.concatenate([self.k, k], axis=2)
            self.v = np.concatenate([self.v, v], axis=2)
        return self.k, self.v


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    b, t, d_model = x.shape
    d_head = d_model // n_heads
    q = split_heads(x @ w_q, n_heads)
    k_new = split_heads(x @ w_k, n_heads)
    v_new = split_heads(x @ w_v, n_heads)
    k_all, v_all = cache.append(k_new, v_new)
    n = k_all.shape[2]
    scores = q @ k_all.transpose(0, 1, 3, 2) / np.sqrt(d_head)  # (b, h, t, n)
    positions = np.arange(n)
    mask = (positions[None, :] <= positions[:, None])[n - t:]  # (n, n) built whole, then its last t rows
    scores = np.where(mask, scores, -np.inf)  # APPLY
    return merge_heads(softmax(scores) @ v_all) @ w_o  # OUT

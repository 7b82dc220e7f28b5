"""Correct: one head at a time with its slice of each weight, one query row at a time, the cache a
dict of per-head key and value arrays."""
import math

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
        self.store = {}

    def __len__(self):
        return 0 if not self.store else self.store[0][0].shape[1]

    def append(self, k, v):
        for head in range(k.shape[1]):
            if head in self.store:
                old_k, old_v = self.store[head]
                self.store[head] = (np.concatenate([old_k, k[:, head]], axis=1),
                                    np.concatenate([old_v, v[:, head]], axis=1))
            else:
                self.store[head] = (k[:, head].copy(), v[:, head].copy())
        heads = range(len(self.store))
        return (np.stack([self.store[h][0] for h in heads], axis=1),
                np.stack([self.store[h][1] for h in heads], axis=1))


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    b, t, d_model = x.shape
    d = d_model // n_heads
    k_new = np.stack([x @ w_k[:, i * d:(i + 1) * d] for i in range(n_heads)], axis=1)
    v_new = np.stack([x @ w_v[:, i * d:(i + 1) * d] for i in range(n_heads)], axis=1)
    k_all, v_all = cache.append(k_new, v_new)
    n = k_all.shape[2]
    outs = []
    for i in range(n_heads):
        q = x @ w_q[:, i * d:(i + 1) * d]
        rows = []
        for row in range(t):
            seen = n - t + row + 1  # this query is position n - t + row: it sees keys 0 .. n - t + row
            scores = q[:, row:row + 1] @ k_all[:, i, :seen].swapaxes(-1, -2) / math.sqrt(d)
            rows.append(softmax(scores) @ v_all[:, i, :seen])
        outs.append(np.concatenate(rows, axis=1))
    return np.concatenate(outs, axis=-1) @ w_o

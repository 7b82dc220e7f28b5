"""The cache of correct/chunk_list.py with scores scaled by 1/sqrt(2 d_head): equal to 1/sqrt(d_model) when
n_heads = 2 and to 1/d_head when d_head = 2; inputs of other sizes tell it from every scale bug."""
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
    past = len(cache)
    q = split_heads(x @ w_q, n_heads)
    k, v = cache.append(split_heads(x @ w_k, n_heads), split_heads(x @ w_v, n_heads))
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(2 * q.shape[-1])  # the mistake
    own = np.triu(np.ones((t, t), dtype=bool), k=1)  # within the new chunk: no later token
    blocked = np.concatenate([np.zeros((t, past), dtype=bool), own], axis=1)
    scores[..., blocked] = -np.inf
    return merge_heads(softmax(scores) @ v) @ w_o

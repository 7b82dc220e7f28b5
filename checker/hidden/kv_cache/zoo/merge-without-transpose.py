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
    return x.reshape(b, t, h * d_head)


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
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    k_all, v_all = cache.append(k, v)
    n = len(cache)
    d_head = d_model // n_heads
    s = q @ k_all.swapaxes(-1, -2) / np.sqrt(d_head)
    visible = np.arange(n)[None, :] <= (n - t + np.arange(t))[:, None]
    s = np.where(visible, s, -np.inf)
    out = softmax(s) @ v_all
    return merge_heads(out) @ w_o

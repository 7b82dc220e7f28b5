"""Softmax without its shift, the mask multiplied into exp(scores): NaN once a score overflows."""

import numpy as np


def softmax(scores):
    """Softmax over the last axis (the keys). Given: every row keeps at least one visible key.

    Args:
        scores: float array (..., n_q, n_k); blocked keys hold -inf.

    Returns:
        Array of the same shape: each row is >= 0 and sums to 1; -inf gets weight exactly 0.
    """
    shifted = scores - scores.max(axis=-1, keepdims=True)  # largest exponent is 0: no overflow
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def split_heads(x, n_heads):
    """(b, t, d_model) -> (b, h, t, d_head): head i owns the channels [i*d_head, (i+1)*d_head). Given.

    Args:
        x: float array (b, t, d_model).
        n_heads: h; d_model must be divisible by it.

    Returns:
        Array (b, h, t, d_head) with d_head = d_model // h.
    """
    b, t, d_model = x.shape
    heads = x.reshape(b, t, n_heads, d_model // n_heads)  # (b, t, h, d_head): still one row per token
    return heads.transpose(0, 2, 1, 3)  # (b, h, t, d_head)


def merge_heads(x):
    """(b, h, t, d_head) -> (b, t, d_model): the exact inverse of split_heads. Given.

    Args:
        x: float array (b, h, t, d_head).

    Returns:
        Array (b, t, h * d_head).
    """
    b, h, t, d_head = x.shape
    tokens = x.transpose(0, 2, 1, 3)  # (b, t, h, d_head)
    return tokens.reshape(b, t, h * d_head)  # (b, t, d_model)



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
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    k_all, v_all = cache.append(k, v)
    n = len(cache)
    s = q @ k_all.swapaxes(-1, -2) / np.sqrt(d_model // n_heads)
    visible = np.arange(n)[None, :] <= (n - t) + np.arange(t)[:, None]
    e = np.exp(s) * visible                       # blocked keys contribute nothing
    return merge_heads((e / e.sum(-1, keepdims=True)) @ v_all) @ w_o

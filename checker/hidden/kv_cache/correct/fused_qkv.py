"""One fused QKV weight (np.concatenate of w_q, w_k, w_v), split after the projection, as GPT-2 does."""
import numpy as np

def softmax(scores):
    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)

def split_heads(x, n_heads):
    b, t, d_model = x.shape
    return x.reshape(b, t, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)

def merge_heads(x):
    b, h, t, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * d_head)

class KVCache:
    def __init__(self):
        self.keys = []     # one (b, h, d_head) array per position
        self.values = []

class KVCache:
    def __init__(self):
        self.k = None; self.v = None
    def __len__(self):
        return 0 if self.k is None else self.k.shape[2]
    def append(self, k, v):
        if self.k is None:
            self.k, self.v = np.array(k), np.array(v)
        else:
            self.k = np.concatenate([self.k, k], 2); self.v = np.concatenate([self.v, v], 2)
        return self.k, self.v

def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    b, t, d = x.shape
    dh = d // n_heads
    w_qkv = np.concatenate([w_q, w_k, w_v], axis=1)
    q, k, v = np.split(x @ w_qkv, 3, axis=-1)
    k_all, v_all = cache.append(split_heads(k, n_heads), split_heads(v, n_heads))
    n = len(cache)
    s = split_heads(q, n_heads) @ k_all.swapaxes(-1, -2) / np.sqrt(dh)
    s = np.where(np.tri(t, n, n - t, dtype=bool), s, -np.inf)
    return merge_heads(softmax(s) @ v_all) @ w_o

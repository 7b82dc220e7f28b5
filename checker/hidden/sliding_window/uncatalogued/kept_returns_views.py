"""Kata 13 whose cache is a shift register and whose kept() hands back views into it: a later append shifts
the storage under a result the caller still holds."""
import numpy as np


def sliding_window_mask(n_q, n_k, window):
    if n_q > n_k:
        raise ValueError("sliding_window_mask: more queries than keys")
    mask = np.zeros((n_q, n_k), dtype=bool)
    offset = n_k - n_q
    for lag in range(min(window, n_k)):  # one diagonal per lag, lag 0 on the query's own key
        rows = np.arange(n_q)
        cols = rows + offset - lag
        ok = cols >= 0
        mask[rows[ok], cols[ok]] = True
    return mask


class RollingKVCache:
    def __init__(self, window):
        self.window, self.n = window, 0
        self.keys = self.vals = None  # (b, h, window, d): the newest position in the last slot

    def __len__(self):
        return self.n

    def append(self, k, v):
        if self.keys is None:
            self.keys = np.zeros(k.shape[:2] + (self.window, k.shape[3]))
            self.vals = np.zeros(v.shape[:2] + (self.window, v.shape[3]))
        if k.shape[:2] != self.keys.shape[:2] or k.shape[3] != self.keys.shape[3] or v.shape[3] != self.vals.shape[3]:
            raise ValueError("append: b, h and d differ from the first append")
        t = min(k.shape[2], self.window)
        self.keys[:, :, :self.window - t] = self.keys[:, :, t:].copy()  # shift left by t, in place
        self.vals[:, :, :self.window - t] = self.vals[:, :, t:].copy()
        self.keys[:, :, self.window - t:] = k[:, :, k.shape[2] - t:]
        self.vals[:, :, self.window - t:] = v[:, :, v.shape[2] - t:]
        self.n += k.shape[2]

    def kept(self):
        m = min(self.n, self.window)
        return self.keys[:, :, self.window - m:], self.vals[:, :, self.window - m:]  # views


def window_attention(q, k, v, cache, window):
    start, t = len(cache), q.shape[2]
    if start:
        old_k, old_v = cache.kept()
        k_all, v_all = np.concatenate([old_k, k], 2), np.concatenate([old_v, v], 2)
    else:
        k_all, v_all = k, v
    n_k = k_all.shape[2]
    scores = np.matmul(q, np.swapaxes(k_all, 2, 3)) / np.sqrt(q.shape[3])  # (b, h, t, n_k)
    scores = np.where(sliding_window_mask(t, n_k, window), scores, -np.inf)
    p = np.exp(scores - scores.max(axis=3, keepdims=True))
    result = np.matmul(p / p.sum(axis=3, keepdims=True), v_all)
    cache.append(k, v)
    return result

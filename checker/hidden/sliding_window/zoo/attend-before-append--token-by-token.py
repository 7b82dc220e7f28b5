"""Kata 13 that runs a chunk token by token, each attending to the cache and only then appended: a token
never sees its own key and value (the first token of an empty cache sees nothing and gives zeros)."""
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
        self.capacity = window
        self.written = 0
        self.slot_pos = np.full(window, -1)  # absolute position held by each slot, -1 = empty
        self.keys = self.vals = None

    def __len__(self):
        return self.written

    def append(self, k, v):
        if self.keys is None:
            self.keys = np.zeros(k.shape[:2] + (self.capacity, k.shape[3]), dtype=np.float64)
            self.vals = np.zeros(v.shape[:2] + (self.capacity, v.shape[3]), dtype=np.float64)
        if k.shape[:2] != self.keys.shape[:2] or k.shape[3] != self.keys.shape[3] or v.shape[3] != self.vals.shape[3]:
            raise ValueError(f"append: expected keys (b, h, t, d) = {self.keys.shape[:2]} + (t, {self.keys.shape[3]})")
        t = k.shape[2]
        first = max(0, t - self.capacity)
        for i in range(first, t):
            slot = (self.written + i) % self.capacity
            self.keys[:, :, slot], self.vals[:, :, slot] = k[:, :, i], v[:, :, i]
            self.slot_pos[slot] = self.written + i
        self.written += t

    def kept(self):
        used = np.flatnonzero(self.slot_pos >= 0)
        order = used[np.argsort(self.slot_pos[used])]  # oldest first
        return self.keys[:, :, order], self.vals[:, :, order]


def window_attention(q, k, v, cache, window):
    rows = []
    for i in range(q.shape[2]):
        if len(cache) == 0:
            rows.append(np.zeros(q.shape[:2] + (1, v.shape[3])))
        else:
            old_k, old_v = cache.kept()  # (b, h, m, d): the last window positions before this token
            scores = np.matmul(q[:, :, i:i + 1], np.swapaxes(old_k, 2, 3)) / np.sqrt(q.shape[3])  # (b, h, 1, m)
            p = np.exp(scores - scores.max(axis=3, keepdims=True))
            rows.append(np.matmul(p / p.sum(axis=3, keepdims=True), old_v))
        cache.append(k[:, :, i:i + 1], v[:, :, i:i + 1])
    return np.concatenate(rows, axis=2)  # (b, h, t, d_v)

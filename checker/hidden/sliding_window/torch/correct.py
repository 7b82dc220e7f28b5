"""Kata 13 in PyTorch: the band from torch.tril/triu offsets, a preallocated ring written with index_copy_,
F.scaled_dot_product_attention with a boolean mask."""
import torch
import torch.nn.functional as F


def sliding_window_mask(n_q, n_k, window):
    if n_q > n_k:
        raise ValueError("n_q must be <= n_k")
    ones = torch.ones(n_q, n_k, dtype=torch.bool)
    return ones.tril(diagonal=n_k - n_q) & ones.triu(diagonal=n_k - n_q - window + 1)


class RollingKVCache:
    def __init__(self, window):
        self.window = window
        self.n = 0
        self.k = self.v = None

    def __len__(self):
        return self.n

    def append(self, k, v):
        b, h, t, d = k.shape
        if self.k is None:
            self.k = k.new_zeros(b, h, self.window, d)
            self.v = v.new_zeros(b, h, self.window, v.shape[-1])
        elif (b, h, d, v.shape[-1]) != (self.k.shape[0], self.k.shape[1], self.k.shape[3], self.v.shape[3]):
            raise ValueError("append: shapes differ from the first append")
        keep = min(t, self.window)
        slots = torch.arange(self.n + t - keep, self.n + t) % self.window
        self.k.index_copy_(2, slots, k[:, :, t - keep:])
        self.v.index_copy_(2, slots, v[:, :, t - keep:])
        self.n += t

    def kept(self):
        m = min(self.n, self.window)
        slots = torch.arange(self.n - m, self.n) % self.window
        return self.k.index_select(2, slots), self.v.index_select(2, slots)


def window_attention(q, k, v, cache, window):
    if len(cache):
        old_k, old_v = cache.kept()
        keys, values = torch.cat([old_k, k], dim=2), torch.cat([old_v, v], dim=2)
    else:
        keys, values = k, v
    mask = sliding_window_mask(q.shape[2], keys.shape[2], window)
    out = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)
    cache.append(k, v)
    return out

"""Kata 08 in PyTorch whose running sum and output are never rescaled when the max grows."""
import math

import torch


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (torch.as_tensor(t) for t in (q, k, v))
    dtype = torch.promote_types(torch.promote_types(q.dtype, k.dtype), torch.promote_types(v.dtype, torch.float32))
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    n_q, d, n_k, d_v = q.shape[-2], q.shape[-1], k.shape[-2], v.shape[-1]
    allowed = None if mask is None else torch.as_tensor(mask, dtype=torch.bool)
    m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=dtype)
    l = torch.zeros_like(m)
    o = torch.zeros((*q.shape[:-1], d_v), dtype=dtype)
    queries = torch.arange(n_k - n_q, n_k)[:, None]
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        scores = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(d)
        visible = torch.ones(n_q, stop - start, dtype=torch.bool)
        if causal:
            visible = visible & (torch.arange(start, stop) <= queries)
        if allowed is not None:
            visible = visible & allowed[..., start:stop]
        scores = scores.masked_fill(~visible, float("-inf"))
        m = torch.maximum(m, scores.amax(dim=-1, keepdim=True))
        p = torch.exp(scores - torch.where(torch.isneginf(m), torch.zeros_like(m), m))
        l = l + p.sum(dim=-1, keepdim=True)
        o = o + p @ v[..., start:stop, :]
    return torch.where(l > 0, o / torch.where(l > 0, l, torch.ones_like(l)), torch.zeros_like(o))

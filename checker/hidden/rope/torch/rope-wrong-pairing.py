"""Kata 06 in PyTorch rotating interleaved pairs (2i, 2i+1), where the contract pairs (i, i + d/2)."""
import math

import torch


def rope(x, positions, base=10000.0):
    x = torch.as_tensor(x)
    d = x.shape[-1]
    theta = base ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
    angles = torch.as_tensor(positions, dtype=torch.float64)[..., None] * theta
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.stack([even * cos - odd * sin, odd * cos + even * sin], dim=-1).flatten(-2)
    return out.to(torch.promote_types(x.dtype, torch.float32))


def rope_attention(q, k, v, base=10000.0):
    q, k, v = (torch.as_tensor(t) for t in (q, k, v))
    t, d, n_k = q.shape[-2], q.shape[-1], k.shape[-2]
    scores = rope(q, torch.arange(n_k - t, n_k), base) @ rope(k, torch.arange(n_k), base).transpose(-2, -1)
    scores = scores / math.sqrt(d)
    visible = torch.ones(t, n_k, dtype=torch.bool).tril(diagonal=n_k - t)
    return torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1) @ v.to(scores.dtype)

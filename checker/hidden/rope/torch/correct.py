"""Kata 06 in PyTorch: Llama's rotate_half with a cos/sin table (float64 angles), SDPA-style attention."""
import math

import torch


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def rope(x, positions, base=10000.0):
    x = torch.as_tensor(x)
    d = x.shape[-1]
    theta = base ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
    angles = torch.as_tensor(positions, dtype=torch.float64)[..., None] * theta
    angles = torch.cat([angles, angles], dim=-1)
    out = x * torch.cos(angles) + _rotate_half(x) * torch.sin(angles)
    return out.to(torch.promote_types(x.dtype, torch.float32))


def rope_attention(q, k, v, base=10000.0):
    q, k, v = (torch.as_tensor(t) for t in (q, k, v))
    t, d, n_k = q.shape[-2], q.shape[-1], k.shape[-2]
    q_rot = rope(q, torch.arange(n_k - t, n_k), base)
    k_rot = rope(k, torch.arange(n_k), base)
    scores = q_rot @ k_rot.transpose(-2, -1) / math.sqrt(d)
    visible = torch.ones(t, n_k, dtype=torch.bool).tril(diagonal=n_k - t)
    return torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1) @ v.to(scores.dtype)

"""Bug batch-transpose (PyTorch): q @ k.T on a batch, which reverses every axis of k and raises a size mismatch; otherwise kata 11 in PyTorch, by hand (no autograd)."""
import math

import torch


def softmax_backward(y, dy, axis=-1):
    y, dy = torch.as_tensor(y), torch.as_tensor(dy)
    dtype = torch.promote_types(torch.promote_types(y.dtype, dy.dtype), torch.float32)
    y, dy = y.to(dtype), dy.to(dtype)
    return y * (dy - (y * dy).sum(dim=axis, keepdim=True))


def attention_backward(q, k, v, d_out, mask=None):
    q, k, v, d_out = (torch.as_tensor(t) for t in (q, k, v, d_out))
    dtype = torch.promote_types(torch.promote_types(q.dtype, k.dtype), torch.promote_types(v.dtype, torch.float32))
    q, k, v, d_out = (t.to(dtype) for t in (q, k, v, d_out))
    scale = 1 / math.sqrt(q.shape[-1])
    scores = q @ k.T * scale  # (..., n_q, n_k)
    if mask is not None:
        scores = scores.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
    p = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)  # a query with no visible key: zeros
    dv = p.transpose(-2, -1) @ d_out
    ds = softmax_backward(p, d_out @ v.transpose(-2, -1))
    dq = ds @ k * scale
    dk = ds.transpose(-2, -1) @ q * scale
    return dq.sum_to_size(q.shape), dk.sum_to_size(k.shape), dv.sum_to_size(v.shape)

"""Kata 01 in PyTorch with `k.T` on a batched tensor (torch reverses every axis, as NumPy does)."""
import math

import torch


def attention_scores(q, k):
    q, k = torch.as_tensor(q), torch.as_tensor(k)
    if not (q.is_floating_point() or k.is_floating_point()):
        q, k = q.double(), k.double()
    k_t = k.permute(*reversed(range(k.ndim)))  # what k.T does (deprecated on >2-D tensors)
    return torch.matmul(q, k_t) / math.sqrt(q.shape[-1])

"""Kata 01 in PyTorch with a plain `k.T` on a batched tensor: it runs on cube-shaped batches and raises torch's
size mismatch on the others, where NumPy's twin raises NumPy's."""
import math

import torch


def attention_scores(q, k):
    q, k = torch.as_tensor(q), torch.as_tensor(k)
    if not (q.is_floating_point() or k.is_floating_point()):
        q, k = q.double(), k.double()
    return q @ k.T / math.sqrt(q.shape[-1])

"""Kata 01 in PyTorch: the reference's contract, written as a PyTorch user would."""
import math

import torch


def attention_scores(q, k):
    q, k = torch.as_tensor(q), torch.as_tensor(k)
    if not (q.is_floating_point() or k.is_floating_point()):
        q, k = q.double(), k.double()
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])

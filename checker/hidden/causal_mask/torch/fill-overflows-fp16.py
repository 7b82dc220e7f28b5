"""Kata 03 in PyTorch, keeping float16 and filling with -1e9: torch refuses the fill ("value cannot be converted
to type c10::Half without overflow") where NumPy's twin turns it into -inf and NaN."""
import math

import torch


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=n_k - n_q)


def attention(q, k, v, mask=None):
    q, k, v = (torch.as_tensor(t) for t in (q, k, v))
    if not q.is_floating_point():
        q, k, v = q.double(), k.double(), v.double()
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # stays float16 for float16 input
    if mask is not None:
        scores = scores.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), -1e9)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * torch.as_tensor(mask, dtype=torch.bool).any(dim=-1, keepdim=True)
    return weights @ v, weights

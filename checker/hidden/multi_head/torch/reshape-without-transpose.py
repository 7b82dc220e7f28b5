"""Kata 04 in PyTorch with `.view(b, h, n, d_head)` straight from (b, n, d_model): tokens mixed across heads."""
import math

import torch
import torch.nn.functional as F


def split_heads(x, n_heads):
    x = torch.as_tensor(x)
    b, n, d_model = x.shape
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"d_model = {d_model} is not divisible by n_heads = {n_heads}")
    return x.reshape(b, n_heads, n, d_model // n_heads)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(1, 2).reshape(b, n, h * d_head)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    x = torch.as_tensor(x)
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    n, d_head = q.shape[-2], q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if causal:
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return merge_heads(F.softmax(scores, dim=-1) @ v) @ w_o

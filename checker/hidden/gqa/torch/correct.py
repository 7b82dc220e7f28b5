"""Kata 07 in PyTorch: repeat_interleave along the heads (Llama's repeat_kv), a bottom-right causal mask."""
import math

import torch


def repeat_kv(x, n_rep):
    x = torch.as_tensor(x)
    return x if n_rep == 1 else torch.repeat_interleave(x, n_rep, dim=1)  # (b, h_kv * n_rep, n, d)


def grouped_query_attention(q, k, v, causal=True):
    q, k, v = (torch.as_tensor(t) for t in (q, k, v))
    h_q, n_q, d = q.shape[1], q.shape[2], q.shape[3]
    h_kv, n_k = k.shape[1], k.shape[2]
    if h_q % h_kv:
        raise ValueError(f"h_q = {h_q} is not a multiple of h_kv = {h_kv}")
    k, v = repeat_kv(k, h_q // h_kv), repeat_kv(v, h_q // h_kv)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d)
    if causal:
        scores = scores.masked_fill(~torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=n_k - n_q), float("-inf"))
    return torch.softmax(scores, dim=-1).nan_to_num(nan=0.0) @ v

"""Kata 09 in PyTorch: torch.topk for the k-th value, a stable sort for the nucleus, searchsorted to sample."""
import torch


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    x = torch.as_tensor(logits, dtype=torch.float64)
    if temperature == 0:
        return torch.nn.functional.one_hot(x.argmax(dim=-1), x.shape[-1]).double()
    x = x / temperature
    if top_k and top_k < x.shape[-1]:
        kth = torch.topk(x, top_k, dim=-1).values[..., -1:]
        x = x.masked_fill(x < kth, float("-inf"))
    probs = torch.softmax(x, dim=-1)
    if top_p is not None and top_p < 1:
        ranked, order = torch.sort(probs, dim=-1, descending=True, stable=True)
        keep_ranked = (ranked.cumsum(dim=-1) - ranked) < top_p
        keep_ranked[..., 0] = True
        keep = torch.zeros_like(keep_ranked).scatter(-1, order, keep_ranked)
        probs = probs * keep
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs


def sample_token(probs, u):
    p = torch.as_tensor(probs, dtype=torch.float64)
    cdf = p.cumsum(dim=-1)
    u = torch.as_tensor(u, dtype=torch.float64).expand(p.shape[:-1])
    picked = torch.searchsorted(cdf, u.unsqueeze(-1).contiguous(), right=True).squeeze(-1)
    last_positive = p.shape[-1] - 1 - torch.flip(p > 0, dims=[-1]).int().argmax(dim=-1)
    return torch.where(picked < p.shape[-1], picked, last_positive)

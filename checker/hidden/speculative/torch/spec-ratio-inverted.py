"""Kata 14 in PyTorch, accepting with q / p (draft over target)."""
import torch


def residual_distribution(p_target, p_draft):
    p_target, p_draft = torch.as_tensor(p_target, dtype=torch.float64), torch.as_tensor(p_draft, dtype=torch.float64)
    excess = torch.clamp(p_target - p_draft, min=0)
    total = excess.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, excess / torch.where(total > 0, total, torch.ones_like(total)), p_target)


def _draw(p, u):
    cdf = torch.cumsum(p, dim=-1)
    i = int(torch.searchsorted(cdf, torch.tensor([float(u)], dtype=cdf.dtype), right=True))
    return i if i < p.shape[-1] else int(torch.nonzero(p > 0)[-1])


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    q = torch.as_tensor(p_draft, dtype=torch.float64)
    p = torch.as_tensor(p_target, dtype=torch.float64)
    tokens = [int(t) for t in torch.as_tensor(draft_tokens, dtype=torch.int64).reshape(-1)]
    u = torch.as_tensor(u_accept, dtype=torch.float64).reshape(-1)
    gamma = len(tokens)
    if q.shape != (gamma, p.shape[-1]) or p.shape[0] != gamma + 1 or u.numel() != gamma:
        raise ValueError("shapes disagree")
    new = []
    for i, x in enumerate(tokens):
        if u[i] < q[i, x] / p[i, x]:
            new.append(x)
            continue
        new.append(_draw(residual_distribution(p[i], q[i]), u_sample))
        return new
    new.append(_draw(p[gamma], u_sample))
    return new

"""Kata 14 in PyTorch, the residual draw written over the rejected token in the caller's draft_tokens."""
import torch


def residual_distribution(p_target, p_draft):
    excess = torch.clamp(torch.as_tensor(p_target) - torch.as_tensor(p_draft), min=0)
    total = excess.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, excess / torch.where(total > 0, total, torch.ones_like(total)), p_target)


def _draw(p, u):
    cdf = torch.cumsum(p, dim=-1)
    i = int(torch.searchsorted(cdf, torch.tensor([float(u)], dtype=cdf.dtype), right=True))
    return i if i < p.shape[-1] else int(torch.nonzero(p > 0)[-1])


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    tokens = torch.as_tensor(draft_tokens)  # shares the caller's tensor's memory
    u = torch.as_tensor(u_accept, dtype=torch.float64).reshape(-1)
    gamma = tokens.numel()
    if p_draft.shape != (gamma, p_target.shape[-1]) or p_target.shape[0] != gamma + 1 or u.numel() != gamma:
        raise ValueError("shapes disagree")
    for i in range(gamma):
        x = int(tokens[i])
        if not float(u[i]) < float(p_target[i, x] / p_draft[i, x]):
            tokens[i] = _draw(residual_distribution(p_target[i], p_draft[i]), u_sample)
            return [int(t) for t in tokens[:i + 1]]
    return [int(t) for t in tokens] + [_draw(p_target[gamma], u_sample)]

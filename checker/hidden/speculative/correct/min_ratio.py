"""Acceptance written as u < min(1, ratio), the residual via np.clip and np.divide(where=), a while loop."""
import numpy as np


def residual_distribution(p_target, p_draft):
    p_target = np.array(p_target, dtype=np.float64)
    residual = np.clip(p_target - np.asarray(p_draft, dtype=np.float64), 0, None)
    norm = residual.sum(axis=-1, keepdims=True)
    out = p_target.copy()
    np.divide(residual, norm, out=out, where=norm > 0)
    return out


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    q, p = np.asarray(p_draft, dtype=np.float64), np.asarray(p_target, dtype=np.float64)
    gamma = len(draft_tokens)
    if q.ndim != 2 or p.ndim != 2 or q.shape[0] != gamma or p.shape[0] != gamma + 1 or q.shape[1] != p.shape[1] \
            or len(u_accept) != gamma:
        raise ValueError("shapes disagree")
    n = 0
    while n < gamma and u_accept[n] < min(1.0, p[n, draft_tokens[n]] / q[n, draft_tokens[n]]):
        n += 1
    dist = p[gamma] if n == gamma else residual_distribution(p[n], q[n])
    token = int(np.searchsorted(np.cumsum(dist), u_sample, side="right"))
    token = min(token, int(np.flatnonzero(dist > 0)[-1]))
    return [int(t) for t in draft_tokens[:n]] + [token]

"""Everything in float32: probabilities cast down, ratios and cumulative sums in single precision."""
import numpy as np


def residual_distribution(p_target, p_draft):
    t = np.asarray(p_target).astype(np.float32)
    d = np.asarray(p_draft).astype(np.float32)
    excess = np.maximum(t - d, np.float32(0))
    total = excess.sum(axis=-1, keepdims=True)
    return np.where(total > 0, excess / np.where(total > 0, total, np.float32(1)), t)


def _draw(p, u):
    cdf = np.cumsum(p.astype(np.float32))
    i = int(np.searchsorted(cdf, np.float32(u), side="right"))
    return i if i < len(p) else int(np.flatnonzero(p > 0)[-1])


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    d = np.asarray(p_draft).astype(np.float32)
    t = np.asarray(p_target).astype(np.float32)
    gamma = len(draft_tokens)
    if d.shape != (gamma, t.shape[-1]) or t.shape[0] != gamma + 1 or len(u_accept) != gamma:
        raise ValueError("shapes disagree")
    new = []
    for i, x in enumerate(int(x) for x in draft_tokens):
        if np.float32(u_accept[i]) * d[i, x] < t[i, x]:  # u < t / d without the division
            new.append(x)
        else:
            new.append(_draw(residual_distribution(t[i], d[i]), u_sample))
            return new
    new.append(_draw(t[gamma], u_sample))
    return new

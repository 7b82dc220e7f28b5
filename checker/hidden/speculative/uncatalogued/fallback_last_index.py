"""A draw past the last cumulative sum returns index V - 1, even when that token has p = 0."""
import numpy as np


def residual_distribution(p_target, p_draft):
    p_target = np.asarray(p_target, dtype=np.float64)
    p_draft = np.asarray(p_draft, dtype=np.float64)
    r = np.maximum(p_target - p_draft, 0.0)
    s = r.sum(axis=-1, keepdims=True)
    return np.where(s > 0, r / np.where(s > 0, s, 1.0), p_target)


def _sample(p, u):
    cdf = np.cumsum(p)
    return min(int(np.searchsorted(cdf, u, side="right")), len(p) - 1)


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    p_draft = np.asarray(p_draft, dtype=np.float64)
    p_target = np.asarray(p_target, dtype=np.float64)
    gamma = len(draft_tokens)
    if p_draft.shape != (gamma, p_target.shape[-1]) or p_target.shape[0] != gamma + 1 or len(u_accept) != gamma:
        raise ValueError("p_draft (gamma, V), p_target (gamma + 1, V), gamma tokens and uniforms")
    out = []
    for i in range(gamma):
        x = int(draft_tokens[i])
        if u_accept[i] < p_target[i, x] / p_draft[i, x]:
            out.append(x)
        else:
            out.append(_sample(residual_distribution(p_target[i], p_draft[i]), u_sample))
            return out
    out.append(_sample(p_target[gamma], u_sample))
    return out

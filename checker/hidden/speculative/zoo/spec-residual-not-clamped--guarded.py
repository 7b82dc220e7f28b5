"""The residual p_target - p_draft over its own sum, no max(0, .), with a guard for a sum of exactly 0
(p_target returned there): on exact inputs the guard fires and a rejection draws from p_target."""
import numpy as np


def residual_distribution(p_target, p_draft):
    p_target = np.asarray(p_target, dtype=np.float64)
    p_draft = np.asarray(p_draft, dtype=np.float64)
    r = p_target - p_draft
    s = r.sum(axis=-1, keepdims=True)
    return np.where(s == 0, p_target, r / np.where(s == 0, 1.0, s))


def _sample(p, u):
    cdf = np.cumsum(p)
    i = int(np.searchsorted(cdf, u, side="right"))
    return i if i < len(p) else int(np.flatnonzero(p > 0)[-1])


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

"""Writes the residual draw over the rejected token in the caller's draft_tokens (an array: no copy)."""
import numpy as np


def residual_distribution(p_target, p_draft):
    p_target = np.asarray(p_target, dtype=np.float64)
    p_draft = np.asarray(p_draft, dtype=np.float64)
    r = np.maximum(p_target - p_draft, 0.0)
    s = r.sum(axis=-1, keepdims=True)
    return np.where(s > 0, r / np.where(s > 0, s, 1.0), p_target)


def _sample(p, u):
    cdf = np.cumsum(p)
    i = int(np.searchsorted(cdf, u, side="right"))
    return i if i < len(p) else int(np.flatnonzero(p > 0)[-1])


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    p_draft = np.asarray(p_draft, dtype=np.float64)
    p_target = np.asarray(p_target, dtype=np.float64)
    tokens = np.asarray(draft_tokens)  # the caller's own array when it is one
    gamma = len(tokens)
    if p_draft.shape != (gamma, p_target.shape[-1]) or p_target.shape[0] != gamma + 1 or len(u_accept) != gamma:
        raise ValueError("p_draft (gamma, V), p_target (gamma + 1, V), gamma tokens and uniforms")
    for i in range(gamma):
        if not u_accept[i] < p_target[i, tokens[i]] / p_draft[i, tokens[i]]:
            tokens[i] = _sample(residual_distribution(p_target[i], p_draft[i]), u_sample)
            return [int(t) for t in tokens[:i + 1]]
    return [int(t) for t in tokens] + [_sample(p_target[gamma], u_sample)]

"""The residual through np.where, the draw as cumsum then searchsorted on every row at once."""
import numpy as np


def residual_distribution(p_target, p_draft):
    diff = np.asarray(p_target, dtype=np.float64) - np.asarray(p_draft, dtype=np.float64)
    excess = np.where(diff > 0, diff, 0.0)
    total = excess.sum(axis=-1, keepdims=True)
    safe = np.where(total == 0, 1.0, total)
    return np.where(total == 0, np.asarray(p_target, dtype=np.float64), excess / safe)


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    p_draft = np.asarray(p_draft, dtype=np.float64)
    p_target = np.asarray(p_target, dtype=np.float64)
    tokens = [int(t) for t in draft_tokens]
    gamma, vocab = len(tokens), p_target.shape[-1]
    if p_draft.shape != (gamma, vocab) or p_target.shape != (gamma + 1, vocab) or np.size(u_accept) != gamma:
        raise ValueError("shapes disagree")
    # the distribution each position would draw from on a rejection, and the bonus row: (gamma + 1, V)
    candidates = np.concatenate([residual_distribution(p_target[:gamma], p_draft), p_target[gamma:]])
    cdf = np.cumsum(candidates, axis=-1)  # (gamma + 1, V)
    for i, x in enumerate(tokens + [None]):
        if x is not None and u_accept[i] < p_target[i, x] / p_draft[i, x]:
            continue
        j = int(np.searchsorted(cdf[i], u_sample, side="right"))
        if j == vocab:
            j = int(np.flatnonzero(candidates[i])[-1])
        return tokens[:i] + [j]

"""Every acceptance test at once: the accepted prefix is the run of Trues before the first False."""
import numpy as np


def residual_distribution(p_target, p_draft):
    p_target, p_draft = np.asarray(p_target, dtype=np.float64), np.asarray(p_draft, dtype=np.float64)
    excess = np.clip(p_target - p_draft, 0.0, None)
    total = excess.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, excess / total, p_target)


def _draw(p, u):
    picked = int((np.cumsum(p) <= u).sum())
    return picked if picked < p.shape[-1] else int(np.nonzero(p)[0][-1])


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    p_draft, p_target = np.asarray(p_draft, dtype=np.float64), np.asarray(p_target, dtype=np.float64)
    tokens = np.asarray(draft_tokens, dtype=np.int64).reshape(-1)
    u = np.asarray(u_accept, dtype=np.float64).reshape(-1)
    gamma = tokens.size
    if p_draft.shape != (gamma, p_target.shape[-1]) or p_target.shape[0] != gamma + 1 or u.size != gamma:
        raise ValueError("shapes disagree")
    rows = np.arange(gamma)
    ratio = p_target[rows, tokens] / p_draft[rows, tokens]  # (gamma,)
    accepted = u < ratio
    n = int(np.argmin(accepted)) if not accepted.all() else gamma  # the first rejection
    kept = tokens[:n].tolist()
    if n == gamma:
        return kept + [_draw(p_target[gamma], u_sample)]
    return kept + [_draw(residual_distribution(p_target[n], p_draft[n]), u_sample)]

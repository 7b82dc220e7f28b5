"""Plain Python loops over lists: no NumPy in the step at all, floats summed one by one."""
import numpy as np


def residual_distribution(p_target, p_draft):
    p_target, p_draft = np.asarray(p_target, dtype=float), np.asarray(p_draft, dtype=float)
    flat_t, flat_d = p_target.reshape(-1, p_target.shape[-1]), p_draft.reshape(-1, p_draft.shape[-1])
    rows = []
    for t_row, d_row in zip(flat_t.tolist(), flat_d.tolist()):
        excess = [max(0.0, t - d) for t, d in zip(t_row, d_row)]
        total = sum(excess)
        rows.append([e / total for e in excess] if total > 0 else list(t_row))
    return np.array(rows).reshape(p_target.shape)


def _draw(p, u):
    running = 0.0
    for i, q in enumerate(p):
        running += q
        if running > u:
            return i
    return max(i for i, q in enumerate(p) if q > 0)


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    draft = [list(map(float, row)) for row in p_draft]
    target = [list(map(float, row)) for row in p_target]
    tokens = [int(t) for t in draft_tokens]
    uniforms = [float(u) for u in u_accept]
    gamma = len(tokens)
    if len(draft) != gamma or len(target) != gamma + 1 or len(uniforms) != gamma or \
            any(len(row) != len(target[0]) for row in draft + target):
        raise ValueError("shapes disagree")
    new = []
    for i, x in enumerate(tokens):
        if uniforms[i] < target[i][x] / draft[i][x]:
            new.append(x)
            continue
        excess = [max(0.0, t - d) for t, d in zip(target[i], draft[i])]
        total = sum(excess)
        new.append(_draw([e / total for e in excess], u_sample))
        return new
    new.append(_draw(target[gamma], u_sample))
    return new

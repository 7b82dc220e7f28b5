"""Correct: one query at a time, with plain Python loops over the visible keys."""
import math

import numpy as np


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return np.array([[j <= n_k - n_q + i for j in range(n_k)] for i in range(n_q)], dtype=bool).reshape(n_q, n_k)


def attention(q, k, v, mask=None):
    q, k, v = (np.asarray(x, dtype=float) for x in (q, k, v))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2],
                               () if mask is None else np.shape(mask)[:-2])
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    allowed = np.broadcast_to(True if mask is None else np.asarray(mask, dtype=bool), lead + (n_q, n_k))
    q, k, v = (np.broadcast_to(x, lead + x.shape[-2:]) for x in (q, k, v))
    weights = np.zeros(lead + (n_q, n_k))
    for idx in np.ndindex(*lead):
        for i in range(n_q):
            visible = [j for j in range(n_k) if allowed[idx + (i, j)]]
            if not visible:
                continue  # nothing to see: zero weights
            scores = {j: float(q[idx][i] @ k[idx][j]) / math.sqrt(d_k) for j in visible}
            top = max(scores.values())
            exps = {j: math.exp(s - top) for j, s in scores.items()}
            total = sum(exps.values())
            for j, e in exps.items():
                weights[idx + (i, j)] = e / total
    return weights @ v, weights

"""A correct kata 09 written with plain Python loops over rows and tokens."""

import math

import numpy as np


def _row_probs(row, temperature, top_k, top_p):
    v = len(row)
    if temperature == 0:
        best = 0
        for i in range(1, v):
            if row[i] > row[best]:
                best = i
        return [1.0 if i == best else 0.0 for i in range(v)]
    scaled = [float(x) / temperature for x in row]
    keep = [True] * v
    if top_k and top_k < v:
        kth = sorted(scaled, reverse=True)[top_k - 1]
        keep = [x >= kth for x in scaled]
    peak = max(x for x, k in zip(scaled, keep) if k)
    e = [math.exp(x - peak) if k else 0.0 for x, k in zip(scaled, keep)]
    total = sum(e)
    p = [x / total for x in e]
    if top_p is not None and top_p < 1:
        order = sorted(range(v), key=lambda i: (-p[i], i))
        nucleus = [False] * v
        running = 0.0
        for rank, i in enumerate(order):
            if rank == 0 or running < top_p:
                nucleus[i] = True
            running += p[i]
        p = [x if n else 0.0 for x, n in zip(p, nucleus)]
        total = sum(p)
        p = [x / total for x in p]
    return p


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    x = np.asarray(logits)
    rows = x.reshape(-1, x.shape[-1])
    out = np.array([_row_probs(list(r), temperature, top_k, top_p) for r in rows])
    return out.reshape(x.shape)


def _row_sample(p, u):
    running = 0.0
    last = None
    for i, q in enumerate(p):
        running += float(q)
        if q > 0:
            last = i
        if running > u:
            return i
    return last


def sample_token(probs, u):
    p = np.asarray(probs)
    lead = p.shape[:-1]
    us = np.broadcast_to(np.asarray(u, dtype=float), lead)
    flat_p, flat_u = p.reshape(-1, p.shape[-1]), us.reshape(-1)
    picks = [_row_sample(row, float(x)) for row, x in zip(flat_p, flat_u)]
    if p.ndim == 1 and np.ndim(u) == 0:
        return picks[0]
    return np.array(picks, dtype=int).reshape(lead)

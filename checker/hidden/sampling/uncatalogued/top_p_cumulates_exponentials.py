"""uncatalogued: top-p cumulates the unnormalised exponentials"""
import math
import numpy as np


def _row(row, temperature, top_k, top_p):
    v = len(row)
    if temperature == 0:
        best = max(range(v), key=lambda i: (row[i], -i))
        return [1.0 if i == best else 0.0 for i in range(v)]
    x = [r / temperature for r in row]
    if top_k and top_k < v:
        kth = sorted(x, reverse=True)[top_k - 1]
        x = [xi if xi >= kth else -math.inf for xi in x]
    top = max(x)
    e = [math.exp(xi - top) if xi != -math.inf else 0.0 for xi in x]
    z = sum(e)
    p = [ei / z for ei in e]
    if top_p is not None and top_p < 1:
        order = sorted(range(v), key=lambda i: (-p[i], i))
        p = e
        keep, acc = set(), 0.0
        for rank, i in enumerate(order):
            if rank == 0 or acc < top_p:
                keep.add(i)
            acc += e[i]
        p = [pi if i in keep else 0.0 for i, pi in enumerate(p)]
        z = sum(p)
        p = [pi / z for pi in p]
    return p


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    x = np.asarray(logits, dtype=np.float64)
    flat = x.reshape(-1, x.shape[-1])
    out = np.array([_row(list(r), temperature, top_k, top_p) for r in flat])
    return out.reshape(x.shape)


def sample_token(probs, u):
    p = np.asarray(probs, dtype=np.float64)
    flat = p.reshape(-1, p.shape[-1])
    us = np.broadcast_to(np.asarray(u, dtype=np.float64), p.shape[:-1]).reshape(-1)
    picks = []
    for row, ui in zip(flat, us):
        acc, pick = 0.0, None
        for i, pi in enumerate(row):
            acc += pi
            if acc > ui:
                pick = i
                break
        if pick is None:
            pick = max(i for i, pi in enumerate(row) if pi > 0)
        picks.append(pick)
    if p.ndim == 1:
        return picks[0]
    return np.array(picks, dtype=np.int64).reshape(p.shape[:-1])

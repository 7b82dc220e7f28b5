"""Plain loops over every (example, head) and every query row: one row's softmax, one row's gradient."""

import math

import numpy as np


def softmax_backward(y, dy, axis=-1):
    y, dy = np.asarray(y, np.float64), np.asarray(dy, np.float64)
    yt, gt = np.moveaxis(y, axis, -1), np.moveaxis(dy, axis, -1)
    out = np.zeros_like(yt)
    for index in np.ndindex(*yt.shape[:-1]):
        row, grad = yt[index], gt[index]
        inner = sum(float(a) * float(b) for a, b in zip(row, grad))
        out[index] = [a * (b - inner) for a, b in zip(row, grad)]
    return np.moveaxis(out, -1, axis)


def attention_backward(q, k, v, d_out, mask=None):
    q, k, v, d_out = (np.asarray(x, np.float64) for x in (q, k, v, d_out))
    n_q, d = q.shape[-2:]
    n_k, d_v = v.shape[-2:]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2],
                               () if mask is None else np.shape(mask)[:-2])
    qb, kb, vb = (np.broadcast_to(x, (*lead, *x.shape[-2:])) for x in (q, k, v))
    ob = np.broadcast_to(d_out, (*lead, n_q, d_v))
    allowed = np.ones((*lead, n_q, n_k), bool) if mask is None else np.broadcast_to(mask, (*lead, n_q, n_k))
    dq, dk, dv = np.zeros(qb.shape), np.zeros(kb.shape), np.zeros(vb.shape)
    for index in np.ndindex(*lead):
        for i in range(n_q):
            seen = [j for j in range(n_k) if allowed[index][i, j]]
            if not seen:
                continue
            scores = {j: float(qb[index][i] @ kb[index][j]) / math.sqrt(d) for j in seen}
            top = max(scores.values())
            exps = {j: math.exp(s - top) for j, s in scores.items()}
            total = sum(exps.values())
            p = {j: e / total for j, e in exps.items()}
            dp = {j: float(ob[index][i] @ vb[index][j]) for j in seen}
            mean = sum(p[j] * dp[j] for j in seen)
            for j in seen:
                ds = p[j] * (dp[j] - mean)
                dv[index][j] += p[j] * ob[index][i]
                dq[index][i] += ds * kb[index][j] / math.sqrt(d)
                dk[index][j] += ds * qb[index][i] / math.sqrt(d)

    def back(g, shape):
        while g.ndim > len(shape):
            g = g.sum(0)
        for axis, size in enumerate(shape):
            if size == 1:
                g = g.sum(axis, keepdims=True)
        return g

    return back(dq, q.shape), back(dk, k.shape), back(dv, v.shape)

"""einsum for every product, a -inf fill with a guard, broadcast inputs summed back with np.sum."""

import numpy as np


def softmax_backward(y, dy, axis=-1):
    y, dy = np.asarray(y, float), np.asarray(dy, float)
    dot = np.einsum("...i,...i->...", np.moveaxis(y, axis, -1), np.moveaxis(dy, axis, -1))
    return y * (dy - np.expand_dims(dot, axis))


def _unbroadcast(g, shape):
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    keep = tuple(i for i, (a, b) in enumerate(zip(shape, g.shape)) if a == 1 and b != 1)
    return g.sum(axis=keep, keepdims=True) if keep else g


def attention_backward(q, k, v, d_out, mask=None):
    q, k, v, d_out = (np.asarray(x, float) for x in (q, k, v, d_out))
    c = 1.0 / np.sqrt(q.shape[-1])
    s = np.einsum("...qd,...kd->...qk", q, k) * c
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    top = np.max(s, axis=-1, keepdims=True)
    top[np.isinf(top)] = 0.0
    e = np.exp(s - top)
    z = e.sum(-1, keepdims=True)
    p = e / np.where(z == 0, 1.0, z)
    dv = np.einsum("...qk,...qe->...ke", p, d_out)
    dp = np.einsum("...qe,...ke->...qk", d_out, v)
    ds = softmax_backward(p, dp)
    dq = np.einsum("...qk,...kd->...qd", ds, k) * c
    dk = np.einsum("...qk,...qd->...kd", ds, q) * c
    return _unbroadcast(dq, q.shape), _unbroadcast(dk, k.shape), _unbroadcast(dv, v.shape)

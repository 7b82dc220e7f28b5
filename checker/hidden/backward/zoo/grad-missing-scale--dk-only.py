"""dq carries the forward's 1/sqrt(d), dk does not."""

import numpy as np


def _t(x):
    return np.swapaxes(x, -1, -2)


def softmax_backward(y, dy, axis=-1):
    y, dy = np.asarray(y, np.float64), np.asarray(dy, np.float64)
    return y * (dy - np.sum(dy * y, axis=axis, keepdims=True))


def _weights(q, k, mask):
    s = q @ _t(k) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - np.where(np.isneginf(m), 0, m))
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _reduce(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    return g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] > 1), keepdims=True)


def attention_backward(q, k, v, d_out, mask=None):
    q, k, v, d_out = (np.asarray(x, np.float64) for x in (q, k, v, d_out))
    p = _weights(q, k, mask)
    dv = _t(p) @ d_out
    ds = softmax_backward(p, d_out @ _t(v))
    dq = ds @ k / np.sqrt(q.shape[-1])
    dk = _t(ds) @ q
    return _reduce(dq, q.shape), _reduce(dk, k.shape), _reduce(dv, v.shape)

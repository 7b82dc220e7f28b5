"""An additive mask with a safe finite fill (the dtype's smallest number), and empty queries zeroed after."""

import numpy as np


def softmax_backward(y, dy, axis=-1):
    y, dy = np.asarray(y), np.asarray(dy)
    weighted = (y * dy).sum(axis=axis, keepdims=True)
    return y * dy - y * weighted


def attention_backward(q, k, v, d_out, mask=None):
    q, k, v, d_out = (np.asarray(x, np.float64) for x in (q, k, v, d_out))
    root = np.sqrt(q.shape[-1])
    s = (q / root) @ np.swapaxes(k, -1, -2)
    if mask is None:
        mask = np.ones(s.shape[-2:], bool)
    mask = np.asarray(mask, bool)
    s = s + np.where(mask, 0.0, np.finfo(s.dtype).min)  # finite: no -inf - (-inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    p = np.where(mask, p, 0.0)  # a blocked key's weight is exactly 0, an empty query's row too
    dv = np.swapaxes(p, -1, -2) @ d_out
    ds = softmax_backward(p, d_out @ np.swapaxes(v, -1, -2))
    dq = ds @ k / root
    dk = np.swapaxes(ds, -1, -2) @ (q / root)
    out = []
    for g, x in ((dq, q), (dk, k), (dv, v)):
        g = g.reshape((-1,) + g.shape[g.ndim - x.ndim:]).sum(axis=0) if g.ndim > x.ndim else g
        for axis, size in enumerate(x.shape):
            if size == 1 and g.shape[axis] != 1:
                g = g.sum(axis=axis, keepdims=True)
        out.append(g)
    return tuple(out)

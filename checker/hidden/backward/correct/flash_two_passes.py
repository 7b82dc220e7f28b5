"""FlashAttention-2's backward in NumPy: a logsumexp per query from one pass over key blocks, then P rebuilt
block by block as exp(S - L), with D = rowsum(d_out * out) in place of sum(P * dP). P is never whole."""

import numpy as np

BLOCK = 3


def softmax_backward(y, dy, axis=-1):
    y, dy = np.asarray(y, np.float64), np.asarray(dy, np.float64)
    return y * (dy - np.sum(dy * y, axis=axis, keepdims=True))


def _visible(mask, shape, start, stop):
    if mask is None:
        return None
    return np.broadcast_to(np.asarray(mask, bool), shape)[..., start:stop]


def attention_backward(q, k, v, d_out, mask=None):
    q, k, v, d_out = (np.asarray(x, np.float64) for x in (q, k, v, d_out))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else np.shape(mask)[:-2])
    q_, k_, v_ = (np.broadcast_to(x, (*lead, *x.shape[-2:])) for x in (q, k, v))
    n_q, n_k, c = q.shape[-2], k.shape[-2], 1 / np.sqrt(q.shape[-1])
    table = (*lead, n_q, n_k)

    def block(start):
        stop = min(start + BLOCK, n_k)
        s = q_ @ np.swapaxes(k_[..., start:stop, :], -1, -2) * c
        seen = _visible(mask, table, start, stop)
        return stop, (s if seen is None else np.where(seen, s, -np.inf))

    m, l = np.full((*lead, n_q, 1), -np.inf), np.zeros((*lead, n_q, 1))
    for start in range(0, n_k, BLOCK):
        _, s = block(start)
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        shift = np.where(np.isneginf(m_new), 0, m_new)
        l = l * np.exp(m - shift) + np.exp(s - shift).sum(-1, keepdims=True)
        m = m_new
    with np.errstate(divide="ignore"):
        lse = np.where(l > 0, np.where(np.isneginf(m), 0, m) + np.log(np.where(l > 0, l, 1)), np.inf)
    out = np.zeros((*lead, n_q, v.shape[-1]))
    for start in range(0, n_k, BLOCK):
        stop, s = block(start)
        out += np.exp(s - lse) @ v_[..., start:stop, :]
    delta = np.sum(d_out * out, axis=-1, keepdims=True)  # (..., n_q, 1) = sum over keys of P * dP
    dq, dk, dv = np.zeros(q_.shape), np.zeros(k_.shape), np.zeros(v_.shape)
    for start in range(0, n_k, BLOCK):
        stop, s = block(start)
        p = np.exp(s - lse)  # (..., n_q, B): exp(-inf) = 0 for blocked keys and empty queries
        dv[..., start:stop, :] = np.swapaxes(p, -1, -2) @ d_out
        ds = p * (d_out @ np.swapaxes(v_[..., start:stop, :], -1, -2) - delta)
        dq += ds @ k_[..., start:stop, :] * c
        dk[..., start:stop, :] = np.swapaxes(ds, -1, -2) @ q_ * c

    def summed(g, shape):
        g = g.sum(axis=tuple(range(g.ndim - len(shape))))
        return g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)

    return summed(dq, q.shape), summed(dk, k.shape), summed(dv, v.shape)

"""The weights from a logsumexp per query, P = exp(S - L), as FlashAttention keeps L for its backward pass."""

import numpy as np


def softmax_backward(y, dy, axis=-1):
    y = np.asarray(y, dtype=np.result_type(y, np.float32))
    dy = np.asarray(dy, dtype=y.dtype)
    return y * dy - y * np.sum(y * dy, axis=axis, keepdims=True)


def _logsumexp(s):
    m = np.max(s, axis=-1, keepdims=True)
    safe = np.where(np.isneginf(m), 0.0, m)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(s - safe), axis=-1, keepdims=True))  # -inf for an empty query


def _sum_to(g, shape):
    axes = tuple(range(g.ndim - len(shape))) + tuple(
        g.ndim - len(shape) + i for i, n in enumerate(shape) if n == 1)
    return g.sum(axis=axes).reshape(shape)


def attention_backward(q, k, v, d_out, mask=None):
    q, k, v, d_out = (np.asarray(x, dtype=np.result_type(x, np.float32)) for x in (q, k, v, d_out))
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    lse = _logsumexp(s)  # (..., n_q, 1)
    p = np.exp(s - np.where(np.isneginf(lse), 0.0, lse))  # exp(-inf) = 0: an empty query's row is 0
    dv = np.swapaxes(p, -1, -2) @ d_out
    ds = softmax_backward(p, d_out @ np.swapaxes(v, -1, -2))
    dq = ds @ k / np.sqrt(q.shape[-1])
    dk = np.swapaxes(ds, -1, -2) @ q / np.sqrt(q.shape[-1])
    return _sum_to(dq, q.shape), _sum_to(dk, k.shape), _sum_to(dv, v.shape)

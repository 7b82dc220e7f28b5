"""Correct (written from the stub alone): preallocated errstate."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q = np.asarray(q)
    k = np.asarray(k)
    v = np.asarray(v)
    dt = np.promote_types(np.result_type(q, k, v), np.float32)
    n_q, d = q.shape[-2:]
    n_k, d_v = k.shape[-2], v.shape[-1]
    lead = q.shape[:-2]
    bs = max(1, min(int(block_size), n_k))
    m = np.empty(lead + (n_q, 1), dt); m.fill(-np.inf)
    l = np.zeros(lead + (n_q, 1), dt)
    o = np.zeros(lead + (n_q, d_v), dt)
    sbuf = np.empty(lead + (n_q, bs), dt)
    m_new = np.empty_like(m)
    alpha = np.empty_like(m)
    qs = (q * (1.0 / np.sqrt(d))).astype(dt, copy=False)
    fullmask = None if mask is None else np.broadcast_to(mask, lead + (n_q, n_k))
    qpos = np.arange(n_q)[:, None] + (n_k - n_q)
    with np.errstate(invalid="ignore", over="ignore"):
        for j0 in range(0, n_k, bs):
            j1 = min(j0 + bs, n_k)
            w = j1 - j0
            s = sbuf[..., :w]
            np.matmul(qs, np.swapaxes(k[..., j0:j1, :], -1, -2), out=s)
            if causal:
                np.copyto(s, -np.inf, where=np.arange(j0, j1)[None, :] > qpos)
            if fullmask is not None:
                np.copyto(s, -np.inf, where=~fullmask[..., j0:j1])
            np.maximum(m, s.max(axis=-1, keepdims=True), out=m_new)
            np.subtract(m, m_new, out=alpha)
            np.exp(alpha, out=alpha)
            alpha[np.isnan(alpha)] = 0          # both -inf: nothing seen yet
            s -= m_new
            np.exp(s, out=s)
            s[np.isnan(s)] = 0                  # whole row masked so far
            l *= alpha
            l += s.sum(axis=-1, keepdims=True)
            o *= alpha
            o += s @ v[..., j0:j1, :]
            m[...] = m_new
        np.divide(o, l, out=o, where=l > 0)
        o[np.broadcast_to(l == 0, o.shape)] = 0
    return o

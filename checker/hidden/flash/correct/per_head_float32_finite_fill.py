"""Correct: a loop over (batch, head), float32 throughout, masked scores filled with float32's lowest number and
their exponentials zeroed."""

import numpy as np, itertools
def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (q, k, v))
    *lead, n_q, d = q.shape; n_k = k.shape[-2]
    out = np.zeros((*lead, n_q, v.shape[-1]), np.float32)
    full = None if mask is None else np.broadcast_to(mask, (*lead, n_q, n_k))
    fill = np.finfo(np.float32).min
    for idx in itertools.product(*map(range, lead)):
        qi, ki, vi = q[idx], k[idx], v[idx]
        m = np.full(n_q, fill, np.float32); l = np.zeros(n_q, np.float32); o = np.zeros((n_q, v.shape[-1]), np.float32)
        for j in range(0, n_k, block_size):
            e = min(j + block_size, n_k)
            s = (qi @ ki[j:e].T) / np.float32(np.sqrt(d))
            ok = np.ones((n_q, e - j), bool)
            if causal: ok &= np.arange(j, e)[None] <= (np.arange(n_q) + n_k - n_q)[:, None]
            if full is not None: ok &= full[idx][:, j:e]
            s = np.where(ok, s, fill)
            mn = np.maximum(m, s.max(1))
            p = np.exp(s - mn[:, None]) * ok
            a = np.exp(m - mn)
            l = a * l + p.sum(1); o = a[:, None] * o + p @ vi[j:e]; m = mn
        out[idx] = np.divide(o, l[:, None], out=np.zeros_like(o), where=l[:, None] > 0)
    return out

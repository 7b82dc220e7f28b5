"""Correct: k and v padded to whole blocks, the padding masked."""

import numpy as np
def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q = np.asarray(q, np.float64); k = np.asarray(k, np.float64); v = np.asarray(v, np.float64)
    n_q, d = q.shape[-2:]; n_k = k.shape[-2]
    pad = (-n_k) % block_size
    widths = [(0, 0)] * (k.ndim - 2) + [(0, pad), (0, 0)]
    kp, vp = np.pad(k, widths), np.pad(v, widths)
    valid = np.arange(n_k + pad) < n_k
    if mask is not None:
        mb = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))  # a view: no (n_q, n_k) copy
    m = np.full(q.shape[:-1], -np.inf); l = np.zeros(q.shape[:-1]); o = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for j in range(0, n_k + pad, block_size):
        s = q @ np.swapaxes(kp[..., j:j+block_size, :], -1, -2) / np.sqrt(d)
        ok = np.broadcast_to(valid[j:j+block_size], s.shape[-2:])
        if causal: ok = ok & (np.arange(j, j+block_size) <= np.arange(n_k-n_q, n_k)[:, None])
        if mask is not None:
            part = mb[..., j:j+block_size]  # the last block's padding columns are masked out
            ok = ok & np.concatenate([part, np.zeros(part.shape[:-1] + (block_size - part.shape[-1],), bool)], -1)
        s = np.where(ok, s, -np.inf)
        mn = np.maximum(m, s.max(-1))
        safe = np.nan_to_num(mn, neginf=0.0)
        p = np.exp(s - safe[..., None]); a = np.exp(m - safe)
        l = a*l + p.sum(-1); o = a[..., None]*o + p @ vp[..., j:j+block_size, :]; m = mn
    l = l[..., None]
    return np.where(l > 0, o / np.where(l > 0, l, 1), 0)

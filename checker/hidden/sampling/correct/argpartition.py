"""A correct kata 09: top-k by np.argpartition, a logsumexp softmax, float32 inside."""

import numpy as np


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    z = np.array(logits, dtype=np.float32)  # a copy, in float32
    v = z.shape[-1]
    if temperature == 0:
        out = np.zeros(z.shape, np.float32)
        np.put_along_axis(out, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
        return out
    z /= np.float32(temperature)
    if top_k and top_k < v:
        idx = np.argpartition(z, v - top_k, axis=-1)[..., v - top_k:v - top_k + 1]
        kth = np.take_along_axis(z, idx, axis=-1)
        z = np.where(z >= kth, z, -np.inf)
    m = z.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(z - m).sum(axis=-1, keepdims=True))
    p = np.exp(z - lse)
    if top_p is not None and top_p < 1.0:
        order = np.argsort(-p, axis=-1, kind="stable")
        sp = np.take_along_axis(p, order, axis=-1)
        excl = np.concatenate([np.zeros_like(sp[..., :1]), np.cumsum(sp, axis=-1)[..., :-1]], axis=-1)
        keep_sorted = excl < top_p
        keep_sorted[..., 0] = True
        keep = np.zeros_like(keep_sorted)
        np.put_along_axis(keep, order, keep_sorted, axis=-1)
        p = np.where(keep, p, 0)
        p = p / p.sum(axis=-1, keepdims=True)
    return p


def sample_token(probs, u):
    p = np.asarray(probs)
    cdf = np.cumsum(p, axis=-1)
    uu = np.broadcast_to(np.asarray(u), p.shape[:-1])
    flat_cdf = cdf.reshape(-1, p.shape[-1])
    flat_p = p.reshape(-1, p.shape[-1])
    out = np.empty(flat_cdf.shape[0], dtype=np.int64)
    for r, (c, x) in enumerate(zip(flat_cdf, uu.reshape(-1))):
        i = np.searchsorted(c, x, side="right")
        if i >= len(c):
            i = np.flatnonzero(flat_p[r] > 0)[-1]
        out[r] = i
    if p.ndim == 1 and np.ndim(u) == 0:
        return int(out[0])
    return out.reshape(p.shape[:-1])

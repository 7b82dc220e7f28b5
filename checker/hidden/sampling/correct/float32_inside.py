"""A correct kata 09 computed in float32 inside, as a GPU sampler would."""

import numpy as np


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    x = np.asarray(logits).astype(np.float32)
    V = x.shape[-1]
    if temperature == 0:
        out = np.zeros(x.shape, dtype=np.float32)
        np.put_along_axis(out, np.argmax(x, -1)[..., None], np.float32(1.0), -1)
        return out
    x = x / np.float32(temperature)
    if top_k and top_k < V:
        kth = -np.partition(-x, top_k - 1, axis=-1)[..., top_k - 1 : top_k]
        x = np.where(x >= kth, x, np.float32(-np.inf))
    e = np.exp(x - x.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    if top_p is not None and top_p < 1:
        idx = np.argsort(-p, axis=-1, kind="stable")
        sp = np.take_along_axis(p, idx, -1)
        before = np.cumsum(sp, -1, dtype=np.float32) - sp
        mask_sorted = before < np.float32(top_p)
        mask_sorted[..., 0] = True
        mask = np.take_along_axis(mask_sorted, np.argsort(idx, axis=-1), -1)
        p = p * mask
        p = p / p.sum(-1, keepdims=True)
    return p.astype(np.float32)


def sample_token(probs, u):
    p = np.asarray(probs, dtype=np.float32)
    cdf = np.cumsum(p, axis=-1)
    uu = np.asarray(u, dtype=np.float32)
    uu = np.broadcast_to(uu, p.shape[:-1])[..., None]
    above = cdf > uu
    idx = np.argmax(above, axis=-1)
    none = ~above.any(axis=-1)
    V = p.shape[-1]
    last = V - 1 - np.argmax(p[..., ::-1] > 0, axis=-1)
    idx = np.where(none, last, idx)
    if p.ndim == 1 and np.ndim(u) == 0:
        return int(idx)
    return idx

"""Kata 09 carrying global-max: shift by the max of the whole batch."""

import numpy as np


def _softmax(x):
    m = np.max(x)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    x = np.asarray(logits, dtype=np.float64)
    V = x.shape[-1]
    if temperature == 0:
        idx = np.argmax(x, axis=-1)
        out = np.zeros_like(x)
        np.put_along_axis(out, idx[..., None], 1.0, axis=-1)
        return out
    x = x / temperature
    if top_k is not None and 0 < top_k < V:
        kth = np.sort(x, axis=-1)[..., V - top_k][..., None]
        x = np.where(x >= kth, x, -np.inf)
    p = _softmax(x)
    if top_p is not None and top_p < 1.0:
        order = np.argsort(-p, axis=-1, kind="stable")
        ps = np.take_along_axis(p, order, axis=-1)
        before = np.concatenate([np.zeros_like(ps[..., :1]), np.cumsum(ps, axis=-1)[..., :-1]], axis=-1)
        keep_sorted = before < top_p
        keep = np.zeros_like(keep_sorted)
        np.put_along_axis(keep, order, keep_sorted, axis=-1)
        p = np.where(keep, p, 0.0)
        p = p / p.sum(axis=-1, keepdims=True)
    return p


def sample_token(probs, u):
    p = np.asarray(probs, dtype=np.float64)
    V = p.shape[-1]
    cdf = np.cumsum(p, axis=-1)
    uu = np.broadcast_to(np.asarray(u, dtype=np.float64), p.shape[:-1])
    idx = np.sum(cdf <= uu[..., None], axis=-1)
    last_pos = V - 1 - np.argmax((p > 0)[..., ::-1], axis=-1)
    idx = np.where(idx >= V, last_pos, idx)
    if p.ndim == 1 and np.ndim(u) == 0:
        return int(idx)
    return idx.astype(np.int64)

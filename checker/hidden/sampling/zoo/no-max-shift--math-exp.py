"""A softmax written with math.exp and no max shift: on logits near 1e4 math.exp raises OverflowError (where
np.exp would give inf): the same missing shift, named."""

import math

import numpy as np


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    logits = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        out = np.zeros_like(logits)
        np.put_along_axis(out, np.argmax(logits, axis=-1)[..., None], 1.0, axis=-1)
        return out
    x = logits / temperature
    if top_k:
        v = x.shape[-1]
        k = min(top_k, v)
        kth = np.sort(x, axis=-1)[..., v - k, None]
        x = np.where(x >= kth, x, -np.inf)
    rows = x.reshape(-1, x.shape[-1])  # (rows, V): each row exponentiated in plain Python
    p = np.array([[math.exp(value) if value > -math.inf else 0.0 for value in row] for row in rows]).reshape(x.shape)
    p = p / p.sum(axis=-1, keepdims=True)
    if top_p is not None and top_p < 1.0:
        order = np.argsort(-p, axis=-1, kind="stable")
        sorted_p = np.take_along_axis(p, order, axis=-1)
        before = np.cumsum(sorted_p, axis=-1) - sorted_p
        keep_sorted = before < top_p
        keep_sorted[..., 0] = True
        keep = np.zeros_like(keep_sorted)
        np.put_along_axis(keep, order, keep_sorted, axis=-1)
        p = np.where(keep, p, 0.0)
        p = p / p.sum(axis=-1, keepdims=True)
    return p


def sample_token(probs, u):
    probs = np.asarray(probs)
    cdf = np.cumsum(probs, axis=-1)
    u = np.broadcast_to(np.asarray(u, dtype=float), probs.shape[:-1])
    idx = (cdf <= u[..., None]).sum(axis=-1)
    last = probs.shape[-1] - 1 - np.argmax(probs[..., ::-1] > 0, axis=-1)
    idx = np.where(idx < probs.shape[-1], idx, last)
    if idx.ndim == 0:
        return int(idx)
    return idx

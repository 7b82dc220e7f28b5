"""A correct kata 09: sort-based top-k and top-p, a finite additive mask (finfo.min), the HF-style
nucleus written as 1 - the reversed cumulative sum."""

import numpy as np


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return np.eye(logits.shape[-1])[logits.argmax(-1)]
    scores = logits / temperature
    if top_k is not None and 0 < top_k < scores.shape[-1]:
        threshold = -np.sort(-scores, axis=-1)[..., top_k - 1:top_k]
        scores = scores + np.where(scores < threshold, np.finfo(float).min, 0.0)
    scores = scores - scores.max(-1, keepdims=True)
    probs = np.exp(scores)
    probs = probs / probs.sum(-1, keepdims=True)
    if top_p is None or top_p >= 1:
        return probs
    order = np.argsort(-probs, axis=-1, kind="mergesort")
    ranked = np.take_along_axis(probs, order, -1)
    # the mass at or after each rank, from the small end: 1 - that is the mass before it
    after = np.flip(np.cumsum(np.flip(ranked, -1), -1), -1)
    total = ranked.sum(-1, keepdims=True)
    remove_ranked = (total - after) >= top_p
    remove_ranked[..., 0] = False
    remove = np.zeros_like(remove_ranked)
    np.put_along_axis(remove, order, remove_ranked, -1)
    probs = np.where(remove, 0.0, probs)
    return probs / probs.sum(-1, keepdims=True)


def sample_token(probs, u):
    probs = np.asarray(probs, dtype=float)
    cdf = probs.cumsum(-1)
    u = np.asarray(u, dtype=float)[..., None]
    index = np.argmax(cdf > u, axis=-1)
    none = ~(cdf > u).any(-1)
    last = probs.shape[-1] - 1 - np.argmax(np.flip(probs, -1) > 0, -1)
    index = np.where(none, last, index)
    index = np.broadcast_to(index, probs.shape[:-1])
    return int(index) if index.ndim == 0 else index.astype(int)

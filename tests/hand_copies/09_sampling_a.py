# hand copy of solutions/09_sampling.py: renamed, restyled, reordered, loops, numpy, helper
import numpy as np


def _softmax(z):
    e = np.exp(z - np.max(z, -1, keepdims=True))
    return e / np.sum(e, -1, keepdims=True)


def _greedy(z):
    out = np.zeros(z.shape, dtype=np.float64)
    for pos in np.ndindex(z.shape[:-1]):
        out[pos + (np.argmax(z[pos]),)] = 1.0
    return out


def _keep_top_k(z, k):
    vocab = z.shape[-1]
    if k >= vocab:
        return np.ones(z.shape, bool)
    cutoff = np.sort(z, -1)[..., vocab - k, None]
    return z >= cutoff


def _keep_nucleus(p, top_p):
    idx = np.argsort(-p, axis=-1, kind="stable")
    sorted_p = np.take_along_axis(p, idx, axis=-1)
    mass_before = np.cumsum(sorted_p, -1) - sorted_p
    keep_sorted = mass_before < top_p
    keep_sorted[..., 0] = True
    keep = np.empty_like(keep_sorted)
    np.put_along_axis(keep, idx, keep_sorted, axis=-1)
    return keep


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    z = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        return _greedy(z)
    z = z / temperature
    if top_k:
        z = np.where(_keep_top_k(z, top_k), z, -np.inf)
    p = _softmax(z)
    if top_p is not None and top_p < 1:
        p = np.where(_keep_nucleus(p, top_p), p, 0.0)
        p = p / np.sum(p, -1, keepdims=True)
    return p


def sample_token(probs, u):
    p = np.asarray(probs, dtype=np.float64)
    *batch, vocab = p.shape
    u = np.broadcast_to(np.asarray(u, dtype=np.float64), tuple(batch))
    cdf = np.cumsum(p, -1)
    idx = np.sum(cdf <= np.expand_dims(u, -1), -1)
    last = vocab - 1 - np.argmax(p[..., ::-1] > 0, -1)
    idx = np.where(idx < vocab, idx, last)
    if idx.ndim == 0:
        return int(idx)
    return idx.astype(np.int64)

"""A correct kata 09 whose softmax is exp(x - logsumexp(x)), the logsumexp itself shifted by the row maximum."""

import numpy as np


def _log_softmax(z):
    m = np.max(z, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))
    return z - lse


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    z = np.asarray(logits, dtype=np.float64)
    V = z.shape[-1]
    if not temperature:
        one = np.zeros(z.shape)
        ii = np.indices(z.shape[:-1])
        one[tuple(ii) + (np.argmax(z, -1),)] = 1.0
        return one
    z = z / temperature
    if top_k is not None and 0 < top_k < V:
        thresh = np.sort(z, -1)[..., [-top_k]]
        z = np.where(z >= thresh, z, -np.inf)
    logp = _log_softmax(z)
    if top_p is not None and top_p < 1.0:
        p = np.exp(logp)
        order = np.argsort(-p, -1, kind="stable")
        sp = np.take_along_axis(p, order, -1)
        before = np.cumsum(sp, -1) - sp
        keep = np.empty(p.shape, dtype=bool)
        np.put_along_axis(keep, order, before < top_p, -1)
        logp = np.where(keep, logp, -np.inf)
        logp = _log_softmax(logp)
    return np.exp(logp)


def sample_token(probs, u):
    p = np.asarray(probs)
    V = p.shape[-1]
    cdf = np.cumsum(p, axis=-1)
    u = np.asarray(u)
    scalar = p.ndim == 1 and u.ndim == 0
    ub = np.broadcast_to(u, p.shape[:-1])
    pick = (cdf > ub[..., None]).argmax(-1)
    past = cdf[..., -1] <= ub
    last = np.max(np.where(p > 0, np.arange(V), 0), axis=-1)
    pick = np.where(past, last, pick)
    return int(pick) if scalar else pick

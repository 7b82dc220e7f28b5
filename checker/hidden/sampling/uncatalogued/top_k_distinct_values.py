"""uncatalogued: top-k by distinct values (np.unique), ties counted once"""
import numpy as np


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """The distribution of the next token, as Hugging Face `generate` builds it for sampling.

    Args:
        logits: (..., V) float32 or float64 scores, one per vocabulary token; any leading dims.
        temperature: a float >= 0. 0 means greedy: one-hot at the argmax (the lowest index on ties).
        top_k: None or 0 keeps every token; else keep the top_k highest logits, and every logit tied
            with the k-th highest as well (top_k >= V keeps every token).
        top_p: None or 1.0 keeps every token; else, in (0, 1), keep the smallest set of most probable
            tokens whose probabilities sum to >= top_p (the token that crosses top_p is kept, and at
            least one token always is). Precisely: sort the probabilities descending, ties by lower
            index first (a stable sort); keep a token iff the sum of the probabilities sorted before it
            is < top_p.

    Returns:
        Probabilities (..., V), a float array, in this order: divide the logits by the temperature; keep
        the top_k highest logits; softmax over the kept ones; keep the top_p nucleus of that softmax;
        renormalise so each row sums to 1. Removed tokens get exactly 0. Stable for logits of +-1e4.
        logits itself is left unchanged.

    Example (logits log 0.5, log 0.25, log 0.125, log 0.125; the first two sum to 0.75 >= 0.7):
        >>> next_token_probs(np.log([0.5, 0.25, 0.125, 0.125]), top_p=0.7).round(4)
        array([0.6667, 0.3333, 0.    , 0.    ])
    """
    x = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        return _one_hot_argmax(x)
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
    """True for the k highest logits of each row and every logit tied with the k-th."""
    v = x.shape[-1]
    if k >= v:
        return np.ones(x.shape, bool)
    kth = np.stack([np.unique(r)[::-1][min(k, len(np.unique(r))) - 1] for r in x.reshape(-1, v)]).reshape(x.shape[:-1] + (1,))
    return x >= kth


def _softmax(x):
    peak = x.max(axis=-1, keepdims=True)  # finite: the top logit always survives top-k
    e = np.exp(x - peak)  # exp(-inf) = 0 for removed tokens
    return e / e.sum(axis=-1, keepdims=True)


def _nucleus(probs, top_p):
    """True for the tokens of the top_p nucleus of each row."""
    order = np.argsort(-probs, axis=-1, kind="stable")  # most probable first, ties by lower index
    ranked = np.take_along_axis(probs, order, axis=-1)  # (..., V)
    before = np.cumsum(ranked, axis=-1) - ranked  # the sum of the probabilities sorted before each
    kept_ranked = before < top_p
    kept_ranked[..., 0] = True  # at least one token, even for a top_p below the largest probability
    kept = np.empty_like(kept_ranked)
    np.put_along_axis(kept, order, kept_ranked, axis=-1)  # back to vocabulary order
    return kept


def sample_token(probs, u):
    """Inverse-CDF sampling: the token whose slice of the cumulative distribution holds u.

    Args:
        probs: (..., V) probabilities, each row summing to 1 (up to rounding); zeros allowed.
        u: a float in [0, 1), or an array of them broadcastable to probs.shape[:-1].

    Returns:
        The smallest index i with cumsum(probs)[i] > u (`np.searchsorted(cdf, u, side="right")`). If
        rounding leaves u >= the last cumulative sum, the last token with probability > 0. An integer for
        1-D probs and a scalar u; else an int array of shape probs.shape[:-1]. probs is left unchanged.

    Example (the cumulative sums are 0.25, 0.5, 1.0; u = 0.5 sits on a boundary and goes right):
        >>> sample_token(np.array([0.25, 0.25, 0.5]), 0.5)
        2
    """
    p = np.asarray(probs, dtype=np.float64)
    *lead, v = p.shape
    cdf = np.cumsum(p, axis=-1)  # (..., V)
    u = np.broadcast_to(np.asarray(u, dtype=np.float64), tuple(lead))  # (...)
    picked = (cdf <= u[..., None]).sum(axis=-1)  # smallest i with cdf[i] > u; V if there is none
    last_positive = v - 1 - np.argmax(p[..., ::-1] > 0, axis=-1)  # (...)
    picked = np.where(picked < v, picked, last_positive)
    return int(picked) if picked.ndim == 0 else picked.astype(np.int64)

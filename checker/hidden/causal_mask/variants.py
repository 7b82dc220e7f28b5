"""What code carrying each catalogued bug of kata 03 computes, to recognise it by its output.

Mask variants take (n_q, n_k) like causal_mask; weight variants take (q, k, v, allowed) in float64,
`allowed` being the mask broadcast to the weights' shape, and return the weights.
"""

import numpy as np

from checker.testkit import variant, variants_in


def _tri(n_q, n_k, offset, upper=False):
    """True where j <= i + offset (or j >= i + offset when upper): a triangle of any alignment."""
    i, j = np.arange(n_q)[:, None], np.arange(n_k)[None, :]
    return j >= i + offset if upper else j <= i + offset


def _n_k(n_q, n_k):
    return n_q if n_k is None else n_k


# --- what the catalogued bugs compute: causal_mask ---------------------------------------------------

@variant("mask-blocks-diagonal")
def _mask_without_diagonal(n_q, n_k=None):
    """the diagonal is blocked (triu(k=0) taken as the blocked part): a query must see its own key"""
    return _tri(n_q, _n_k(n_q, n_k), _n_k(n_q, n_k) - n_q - 1)


@variant("mask-flipped")
def _mask_upper(n_q, n_k=None):
    """the upper triangle is kept, so each query sees the FUTURE and not the past (triu, not tril)"""
    return _tri(n_q, _n_k(n_q, n_k), _n_k(n_q, n_k) - n_q, upper=True)


@variant("mask-flipped")
def _mask_upper_top_left(n_q, n_k=None):
    """the upper triangle is kept, so each query sees the FUTURE and not the past (triu, not tril)"""
    return _tri(n_q, _n_k(n_q, n_k), 0, upper=True)


@variant("mask-inverted")
def _mask_of_blocked(n_q, n_k=None):
    """True marks the blocked keys (the future) here: True must mean 'may attend'"""
    return _tri(n_q, _n_k(n_q, n_k), _n_k(n_q, n_k) - n_q + 1, upper=True)


@variant("mask-inverted")
def _mask_of_blocked_top_left(n_q, n_k=None):
    """True marks the blocked keys (the future) here: True must mean 'may attend'"""
    return _tri(n_q, _n_k(n_q, n_k), 1, upper=True)


@variant("mask-top-left")
def _mask_top_left(n_q, n_k=None):
    """the mask is aligned top-left (tril(ones(n_q, n_k))); queries are the LAST n_q positions, so
    query i sees keys up to n_k - n_q + i"""
    return _tri(n_q, _n_k(n_q, n_k), 0)


@variant("mask-top-left")
def _mask_top_left_without_diagonal(n_q, n_k=None):
    """the mask is aligned top-left and blocks the diagonal (~triu(ones(n_q, n_k))); queries are the LAST
    n_q positions, so query i sees keys up to n_k - n_q + i, itself included"""
    if n_q == _n_k(n_q, n_k):  # a square mask cannot show the alignment: leave it to mask-blocks-diagonal
        raise ValueError("square mask")
    return _tri(n_q, _n_k(n_q, n_k), -1)


MASK_VARIANTS = variants_in(globals())


# --- what the catalogued bugs compute: attention weights ---------------------------------------------

def _scores(q, k):
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


def _softmax(x, axis=-1):
    """Stable, but no guard: a slice of only -inf gives NaN."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _guarded_softmax(x, axis=-1):
    """A slice of only -inf (or of zeros after masking) gives zeros."""
    peak = x.max(axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isneginf(peak), 0, peak))
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)


@variant("mask-after-softmax")
def _zeroed_after(q, k, v, allowed):
    """the mask zeroed weights after the softmax, so the rest no longer sum to 1: block the scores before it"""
    return _softmax(_scores(q, k)) * allowed


@variant("mask-after-softmax")
def _renormalised_after(q, k, v, allowed):
    """the mask zeroed weights after the softmax: blocked keys with large scores took all the weight
    first, so nothing was left to renormalise; block the scores before the softmax"""
    w = _softmax(_scores(q, k)) * allowed
    total = w.sum(axis=-1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total != 0)


@variant("mask-after-softmax")
def _renormalised_after_nan(q, k, v, allowed):
    """the mask zeroed weights after the softmax: blocked keys with large scores took all the weight
    first, and 0 / 0 is NaN; block the scores before the softmax"""
    w = _softmax(_scores(q, k)) * allowed
    return w / w.sum(axis=-1, keepdims=True)


@variant("mask-arithmetic")
def _mask_added(q, k, v, allowed):
    """the mask was added to the scores (True = +1): blocked scores must be replaced, not shifted"""
    return _softmax(_scores(q, k) + allowed)


@variant("mask-arithmetic")
def _mask_multiplied(q, k, v, allowed):
    """the mask was multiplied into the scores, so blocked scores became 0, not -inf"""
    return _softmax(_scores(q, k) * allowed)


@variant("mask-inverted")
def _inverted(q, k, v, allowed):
    """True was read as 'blocked': True means 'may attend' (PyTorch's boolean attn_mask)"""
    return _guarded_softmax(np.where(allowed, -np.inf, _scores(q, k)))


@variant("mask-inverted")
def _inverted_nan(q, k, v, allowed):
    """True was read as 'blocked': True means 'may attend' (PyTorch's boolean attn_mask)"""
    return _softmax(np.where(allowed, -np.inf, _scores(q, k)))


@variant("mask-inverted")
def _inverted_finite(q, k, v, allowed):
    """True was read as 'blocked': True means 'may attend' (PyTorch's boolean attn_mask)"""
    return _softmax(np.where(allowed, -1e9, _scores(q, k)))


@variant("full-row-nan")
def _unguarded(q, k, v, allowed):
    """a query with no visible key got NaN: its scores are all -inf and -inf - (-inf) is NaN;
    give it zero weights"""
    return _softmax(np.where(allowed, _scores(q, k), -np.inf))


@variant("full-row-uniform")
def _finite_fill(q, k, v, allowed):
    """a query with no visible key averaged every value: a finite fill leaves its row uniform;
    give it zero weights and a zero output"""
    return _softmax(np.where(allowed, _scores(q, k), -1e9))


@variant("full-row-uniform")
def _finite_bias(q, k, v, allowed):
    """a query with no visible key still mixed the values: a finite bias shifts its whole row alike;
    give it zero weights and a zero output"""
    return _softmax(_scores(q, k) + np.where(allowed, 0.0, -1e9))


@variant("softmax-wrong-axis")
def _over_queries(q, k, v, allowed):
    """the softmax ran over the queries (axis -2), not over the keys (axis -1)"""
    return _guarded_softmax(np.where(allowed, _scores(q, k), -np.inf), axis=-2)


@variant("softmax-wrong-axis")
def _over_queries_nan(q, k, v, allowed):
    """the softmax ran over the queries (axis -2), not over the keys (axis -1)"""
    return _softmax(np.where(allowed, _scores(q, k), -np.inf), axis=-2)


WEIGHT_VARIANTS = [f for f in variants_in(globals()) if f not in MASK_VARIANTS]

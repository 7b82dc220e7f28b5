"""What code carrying each catalogued bug of kata 03 computes, to recognise it by its output, and the
pieces of attention that katas 03-05 build their variants from.

Mask variants take (n_q, n_k) like causal_mask. Attention is built from pieces: `scores(q, k, divisor)`
(the divisors are kata 01's scale variants), a masking `masking(scores, allowed, softmax)` that keeps
blocked keys out (the softmax is kata 02's), so a bug keeps its id in every kata where it can happen.
Weight variants take (q, k, v, allowed) in float64, `allowed` being the mask broadcast to the weights'
shape, and return the weights.
"""

import numpy as np

from checker.hidden.scores import variants as scale
from checker.hidden.softmax import variants as softmax_pieces
from checker.testkit import variant, variants_in


def _tri(n_q, n_k, offset, upper=False):
    """True where j <= i + offset (or j >= i + offset when upper): a triangle of any alignment."""
    i, j = np.arange(n_q)[:, None], np.arange(n_k)[None, :]
    return j >= i + offset if upper else j <= i + offset


def _n_k(n_q, n_k):
    return n_q if n_k is None else n_k


# --- what the catalogued bugs compute: causal_mask ---------------------------------------------------

@variant("mask-blocks-diagonal", of="mask")
def _mask_without_diagonal(n_q, n_k=None):
    """the diagonal is blocked (triu(k=0) taken as the blocked part): a query must see its own key"""
    return _tri(n_q, _n_k(n_q, n_k), _n_k(n_q, n_k) - n_q - 1)


@variant("mask-flipped", of="mask")
def _mask_upper(n_q, n_k=None):
    """the upper triangle is kept, so each query sees the FUTURE and not the past (triu, not tril)"""
    return _tri(n_q, _n_k(n_q, n_k), _n_k(n_q, n_k) - n_q, upper=True)


@variant("mask-flipped", of="mask")
def _mask_upper_top_left(n_q, n_k=None):
    """the upper triangle is kept, so each query sees the FUTURE and not the past (triu, not tril)"""
    return _tri(n_q, _n_k(n_q, n_k), 0, upper=True)


@variant("mask-inverted", of="mask")
def _mask_of_blocked(n_q, n_k=None):
    """True marks the blocked keys (the future) here: True must mean 'may attend'"""
    return _tri(n_q, _n_k(n_q, n_k), _n_k(n_q, n_k) - n_q + 1, upper=True)


@variant("mask-inverted", of="mask")
def _mask_of_blocked_top_left(n_q, n_k=None):
    """True marks the blocked keys (the future) here: True must mean 'may attend'"""
    return _tri(n_q, _n_k(n_q, n_k), 1, upper=True)


@variant("mask-top-left", of="mask")
def _mask_top_left(n_q, n_k=None):
    """the mask is aligned top-left (tril(ones(n_q, n_k))); queries are the LAST n_q positions, so
    query i sees keys up to n_k - n_q + i"""
    return _tri(n_q, _n_k(n_q, n_k), 0)


@variant("mask-top-left", of="mask")
def _mask_top_left_without_diagonal(n_q, n_k=None):
    """the mask is aligned top-left and blocks the diagonal (~triu(ones(n_q, n_k))); queries are the LAST
    n_q positions, so query i sees keys up to n_k - n_q + i, itself included"""
    if n_q == _n_k(n_q, n_k):  # a square mask cannot show the alignment: leave it to mask-blocks-diagonal
        raise ValueError("square mask")
    return _tri(n_q, _n_k(n_q, n_k), -1)


def right_mask(n_q, n_k=None):
    """Bottom-right: query i is position n_k - n_q + i and sees every key up to it."""
    return _tri(n_q, _n_k(n_q, n_k), _n_k(n_q, n_k) - n_q)


MASK_VARIANTS = variants_in(globals(), of="mask")


# --- the pieces of attention ------------------------------------------------------------------------

def scores(q, k, divisor=scale.right_divisor):
    """q . k^T divided by `divisor(d_head, n_q, n_k)`: sqrt(d_head) when right, a scale bug's number else."""
    return q @ np.swapaxes(k, -1, -2) / divisor(q.shape[-1], q.shape[-2], k.shape[-2])


softmax = softmax_pieces.stable  # stable, but no guard: a slice of only -inf gives NaN


def _guarded_softmax(x, axis=-1):
    """A slice of only -inf (or of zeros after masking) gives zeros."""
    peak = x.max(axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isneginf(peak), 0, peak))
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)


# Ways to keep blocked keys out, all right wherever every query sees a key (a causal mask over the
# query's own position): -inf and a guard, -inf alone (NaN for a query that sees nothing), a finite fill
# (a query that sees nothing averages every value). Each takes the softmax to run: kata 02's, or a bug's.

def fill_guarded(scores, allowed, softmax=softmax):
    """-inf, and zeros for a query with no visible key: the right masking."""
    weights = softmax(np.where(allowed, scores, -np.inf))
    return np.where(np.isnan(weights) & ~allowed.any(axis=-1, keepdims=True), 0.0, weights)


def fill_neg_inf(scores, allowed, softmax=softmax):
    return softmax(np.where(allowed, scores, -np.inf))


def fill_finite(scores, allowed, softmax=softmax):
    return softmax(np.where(allowed, scores, -1e9))


HONEST_FILLS = (fill_guarded, fill_neg_inf, fill_finite)


def zeroed_after(scores, allowed, softmax=softmax):
    """the mask zeroed weights after the softmax, so the rest no longer sum to 1: block the scores before it"""
    return softmax(scores) * allowed


# --- what the catalogued bugs compute: attention weights ---------------------------------------------

def weights_variant(bug_id, doc, divisor=scale.right_divisor, masking=fill_guarded):
    """A weight variant (q, k, v, allowed) -> weights built from pieces, one of them buggy."""

    def weights(q, k, v, allowed):
        return masking(scores(q, k, divisor), allowed)

    weights.__doc__ = doc
    return variant(bug_id, of="weights")(weights)


def _scores(q, k):
    return scores(q, k)


@variant("mask-after-softmax", of="weights")
def _zeroed_after(q, k, v, allowed):
    """the mask zeroed weights after the softmax, so the rest no longer sum to 1: block the scores before it"""
    return zeroed_after(_scores(q, k), allowed)


@variant("mask-after-softmax", of="weights")
def _renormalised_after(q, k, v, allowed):
    """the mask zeroed weights after the softmax: blocked keys with large scores took all the weight
    first, so nothing was left to renormalise; block the scores before the softmax"""
    w = softmax(_scores(q, k)) * allowed
    total = w.sum(axis=-1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total != 0)


@variant("mask-after-softmax", of="weights")
def _renormalised_after_nan(q, k, v, allowed):
    """the mask zeroed weights after the softmax: blocked keys with large scores took all the weight
    first, and 0 / 0 is NaN; block the scores before the softmax"""
    w = softmax(_scores(q, k)) * allowed
    return w / w.sum(axis=-1, keepdims=True)


@variant("mask-arithmetic", of="weights")
def _mask_added(q, k, v, allowed):
    """the mask was added to the scores (True = +1): blocked scores must be replaced, not shifted"""
    return softmax(_scores(q, k) + allowed)


@variant("mask-arithmetic", of="weights")
def _mask_multiplied(q, k, v, allowed):
    """the mask was multiplied into the scores, so blocked scores became 0, not -inf"""
    return softmax(_scores(q, k) * allowed)


@variant("mask-inverted", of="weights")
def _inverted(q, k, v, allowed):
    """True was read as 'blocked': True means 'may attend' (PyTorch's boolean attn_mask)"""
    return _guarded_softmax(np.where(allowed, -np.inf, _scores(q, k)))


@variant("mask-inverted", of="weights")
def _inverted_nan(q, k, v, allowed):
    """True was read as 'blocked': True means 'may attend' (PyTorch's boolean attn_mask)"""
    return softmax(np.where(allowed, -np.inf, _scores(q, k)))


@variant("mask-inverted", of="weights")
def _inverted_finite(q, k, v, allowed):
    """True was read as 'blocked': True means 'may attend' (PyTorch's boolean attn_mask)"""
    return softmax(np.where(allowed, -1e9, _scores(q, k)))


@variant("full-row-nan", of="weights")
def _unguarded(q, k, v, allowed):
    """a query with no visible key got NaN: its scores are all -inf and -inf - (-inf) is NaN;
    give it zero weights"""
    return fill_neg_inf(_scores(q, k), allowed)


@variant("full-row-uniform", of="weights")
def _finite_fill(q, k, v, allowed):
    """a query with no visible key averaged every value: a finite fill leaves its row uniform;
    give it zero weights and a zero output"""
    return fill_finite(_scores(q, k), allowed)


@variant("full-row-uniform", of="weights")
def _finite_bias(q, k, v, allowed):
    """a query with no visible key still mixed the values: a finite bias shifts its whole row alike;
    give it zero weights and a zero output"""
    return softmax(_scores(q, k) + np.where(allowed, 0.0, -1e9))


@variant("softmax-wrong-axis", of="weights")
def _over_queries(q, k, v, allowed):
    """the softmax ran over the queries (axis -2), not over the keys (axis -1)"""
    return _guarded_softmax(np.where(allowed, _scores(q, k), -np.inf), axis=-2)


@variant("softmax-wrong-axis", of="weights")
def _over_queries_nan(q, k, v, allowed):
    """the softmax ran over the queries (axis -2), not over the keys (axis -1)"""
    return softmax(np.where(allowed, _scores(q, k), -np.inf), axis=-2)


SCALED = [weights_variant(divisor.variant_of, divisor.__doc__, divisor=divisor)
          for divisor in variants_in(vars(scale), of="divisor") if divisor.variant_of != "scale-by-seq-len"]

WEIGHT_VARIANTS = variants_in(globals(), of="weights")

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
from checker.engine.testkit import variant, variants_in


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


@variant("mask-blocks-diagonal", of="mask")
def _mask_without_diagonal_first_kept(n_q, n_k=None):
    """the diagonal is blocked (triu(k=0) taken as the blocked part), and only the query left with no key
    (blocked[0, 0] = False) got its own key back: every query must see its own key"""
    n_k = _n_k(n_q, n_k)
    allowed, right = _mask_without_diagonal(n_q, n_k), right_mask(n_q, n_k)
    empty = ~allowed.any(axis=-1) & right.any(axis=-1)  # rows the blocked diagonal left without a key
    allowed[empty, n_k - n_q + np.flatnonzero(empty)] = True  # each gets its own key back
    return allowed


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

def scores(q, k, divisor=scale.right_divisor, product=scale.right_product):
    """q . k^T divided by `divisor(d_head, n_q, n_k)`: sqrt(d_head) when right, a scale bug's number else;
    `product` is kata 01's table q . k^T, or a bug's."""
    return product(q, k) / divisor(q.shape[-1], q.shape[-2], k.shape[-2])


softmax = softmax_pieces.stable  # stable, but no guard: a slice of only -inf gives NaN


def _guarded_softmax(x, axis=-1):
    """A slice of only -inf (or of zeros after masking) gives zeros."""
    peak = x.max(axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isneginf(peak), 0, peak))
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)


def over_queries(x):
    """kata 02's softmax run over axis -2, the queries, instead of the keys"""
    return softmax(x, axis=-2)


def over_queries_guarded(x):
    return _guarded_softmax(x, axis=-2)


# The softmax bugs of kata 02 that a softmax written inside attention can carry, taken from its variants
# (wrong-axis is kata 03's softmax-wrong-axis here; nan-on-all-masked is full-row-nan; hides-nan needs NaN input)
SOFTMAX_BUGS = ("no-max-shift", "global-max", "max-floor-zero", "missing-keepdims", "global-sum")
BUGGY_SOFTMAXES = [f for f in variants_in(vars(softmax_pieces), of="softmax") if f.variant_of in SOFTMAX_BUGS]


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


def bias_finite(scores, allowed, softmax=softmax):
    """a finite bias added where blocked: right where every query sees a key"""
    return softmax(scores + np.where(allowed, 0.0, -1e9))


def zeroed_after(scores, allowed, softmax=softmax):
    """the mask zeroed weights after the softmax, so the rest no longer sum to 1: block the scores before it"""
    return softmax(scores) * allowed


def renormalised_after(scores, allowed, softmax=softmax):
    """the mask zeroed weights after the softmax: blocked keys with large scores took all the weight
    first, so nothing was left to renormalise; block the scores before the softmax"""
    w = softmax(scores) * allowed
    total = w.sum(axis=-1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total != 0)


def renormalised_after_nan(scores, allowed, softmax=softmax):
    """the mask zeroed weights after the softmax: blocked keys with large scores took all the weight
    first, and 0 / 0 is NaN; block the scores before the softmax"""
    w = softmax(scores) * allowed
    return w / w.sum(axis=-1, keepdims=True)


def mask_added(scores, allowed, softmax=softmax):
    """the mask was added to the scores (True = +1): blocked scores must be replaced, not shifted"""
    return softmax(scores + allowed)


def mask_multiplied(scores, allowed, softmax=softmax):
    """the mask was multiplied into the scores, so blocked scores became 0, not -inf"""
    return softmax(scores * allowed)


def blocked_added(scores, allowed, softmax=softmax):
    """a bool table of the blocked keys was added to the scores (True = +1): blocked scores must be replaced
    with -inf, not shifted"""
    return softmax(scores + ~allowed)


MASK_ARITHMETIC = (mask_added, mask_multiplied, blocked_added)


def _inverted(fill):
    def masking(scores, allowed, softmax=softmax):
        return fill(scores, ~allowed, softmax)

    masking.__doc__ = "True was read as 'blocked': True means 'may attend' (PyTorch's boolean attn_mask)"
    return masking


MASK_INVERTED = tuple(_inverted(fill) for fill in HONEST_FILLS)


# --- what the catalogued bugs compute: attention weights ---------------------------------------------

def weights_variant(bug_id, doc, divisor=scale.right_divisor, masking=fill_guarded, softmax=softmax,
                    product=scale.right_product):
    """A weight variant (q, k, v, allowed) -> weights built from pieces, one of them buggy."""

    def weights(q, k, v, allowed):
        return masking(scores(q, k, divisor, product), allowed, softmax)

    weights.__doc__ = " ".join((doc or bug_id).split())
    return variant(bug_id, of="weights")(weights)


SCALED = [weights_variant(divisor.variant_of, divisor.__doc__, divisor=divisor)
          for divisor in variants_in(vars(scale), of="divisor")]
PRODUCTS = [weights_variant(product.variant_of, product.__doc__, product=product)  # k.T errors on batches
            for product in variants_in(vars(scale), of="product") if product.variant_of != "batch-transpose"]
MASKINGS = (
    [weights_variant("mask-after-softmax", m.__doc__, masking=m)
     for m in (zeroed_after, renormalised_after, renormalised_after_nan)]
    + [weights_variant("mask-arithmetic", m.__doc__, masking=m) for m in MASK_ARITHMETIC]
    + [weights_variant("mask-inverted", m.__doc__, masking=m) for m in MASK_INVERTED]
    + [weights_variant("full-row-nan", "a query with no visible key got NaN: its scores are all -inf and "
                       "-inf - (-inf) is NaN; give it zero weights", masking=fill_neg_inf)]
    + [weights_variant("full-row-uniform", "a query with no visible key averaged every value: a finite fill "
                       "leaves its row uniform; give it zero weights and a zero output", masking=m)
       for m in (fill_finite, bias_finite)]
    + [weights_variant("softmax-wrong-axis", "the softmax ran over the queries (axis -2), not over the keys "
                       "(axis -1)", masking=fill_neg_inf, softmax=s) for s in (over_queries_guarded, over_queries)])
SOFTMAXED = [weights_variant(s.variant_of, s.__doc__, masking=fill, softmax=s)
             for s in BUGGY_SOFTMAXES for fill in HONEST_FILLS]

WEIGHT_VARIANTS = variants_in(globals(), of="weights")

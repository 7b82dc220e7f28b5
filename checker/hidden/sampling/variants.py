"""What code carrying each catalogued bug of kata 09 computes, to recognise it by its output.

Distribution variants take next_token_probs' arguments (logits in float64) and return probabilities;
sample variants take (probs, u) and return indices. Each is the right pipeline with one step changed:
temperature, top-k, softmax, top-p, renormalisation. The softmax bugs are kata 02's own variants, run
inside the pipeline, so a softmax mistake keeps its id here.
"""

import numpy as np

from checker.hidden.softmax import variants as softmax_pieces
from checker.engine.testkit import variant, variants_in


# --- the right steps, to be swapped one at a time ----------------------------------------------------

def _one_hot(x):
    return (np.arange(x.shape[-1]) == np.argmax(x, axis=-1)[..., None]).astype(np.float64)  # (..., V)


def _kth_highest(x, k):
    """The k-th highest value of each row, (..., 1); k is clamped to 1 ... V."""
    k = min(max(k, 1), x.shape[-1])
    return np.sort(x, axis=-1)[..., x.shape[-1] - k, None]


def top_k_mask(x, k):
    return np.ones(x.shape, bool) if not k else x >= _kth_highest(x, k)


softmax = softmax_pieces.stable  # over the last axis; the top logit always survives top-k, so no guard


def ranked(probs):
    """(order, probabilities in that order): most probable first, ties by lower index."""
    order = np.argsort(-probs, axis=-1, kind="stable")
    return order, np.take_along_axis(probs, order, axis=-1)


def _unrank(order, kept_ranked):
    kept = np.empty_like(kept_ranked)
    np.put_along_axis(kept, order, kept_ranked, axis=-1)
    return kept


def nucleus(probs, top_p):
    """The right top-p kept set: the sum sorted before a token < top_p; the first token always."""
    if top_p is None or top_p >= 1:
        return np.ones(probs.shape, bool)
    order, sorted_probs = ranked(probs)
    kept = np.cumsum(sorted_probs, axis=-1) - sorted_probs < top_p
    kept[..., 0] = True
    return _unrank(order, kept)


def _renormalise(probs):
    return probs / probs.sum(axis=-1, keepdims=True)


def pipeline(logits, temperature=1.0, top_k=None, top_p=None, *, scale=None, kept_k=None, kept_p=None,
             softmax=softmax, renormalise=True):
    """next_token_probs with any step swapped: scale(x, T), kept_k(x, k), softmax(x), kept_p(probs, top_p)."""
    x = np.asarray(logits, np.float64)
    if temperature == 0 and scale is None:
        return _one_hot(x)
    x = scale(x, temperature) if scale else x / temperature
    x = np.where((kept_k or top_k_mask)(x, top_k), x, -np.inf)
    probs = softmax(x)
    if top_p is None or top_p >= 1:
        return probs
    probs = np.where((kept_p or nucleus)(probs, top_p), probs, 0.0)
    return _renormalise(probs) if renormalise else probs


# --- temperature ---------------------------------------------------------------------------------

@variant("temperature-multiplied")
def _temperature_multiplied(logits, temperature=1.0, top_k=None, top_p=None):
    """the logits were multiplied by the temperature: divide them (T < 1 sharpens, T > 1 flattens)"""
    return pipeline(logits, temperature, top_k, top_p, scale=lambda x, t: x * t)


@variant("temperature-after-softmax")
def _temperature_after_softmax(logits, temperature=1.0, top_k=None, top_p=None):
    """the distribution is that of temperature 1: dividing probabilities by T is undone by renormalising;
    divide the logits by T before the softmax"""
    return pipeline(logits, temperature, top_k, top_p, scale=lambda x, t: x * 1.0)


@variant("temperature-after-softmax")
def _probabilities_divided(logits, temperature=1.0, top_k=None, top_p=None):
    """the probabilities of temperature 1 were divided by T (they sum to 1/T, and renormalising would undo
    it): divide the logits by T before the softmax"""
    if temperature == 0:
        return pipeline(logits, temperature, top_k, top_p)
    divided = pipeline(logits, 1.0, top_k) / temperature
    if top_p is None or top_p >= 1:
        return divided
    return _renormalise(np.where(nucleus(divided, top_p), divided, 0.0))  # the nucleus of numbers summing to 1/T


@variant("greedy-nan")
def _greedy_divides_by_zero(logits, temperature=1.0, top_k=None, top_p=None):
    """temperature 0 divided the logits by 0 (inf - inf is NaN): temperature 0 means greedy, a one-hot
    row at the argmax"""
    return pipeline(logits, temperature, top_k, top_p, scale=lambda x, t: x / t)


# --- top-k ---------------------------------------------------------------------------------------

@variant("top-k-off-by-one")
def _top_k_minus_one(logits, temperature=1.0, top_k=None, top_p=None):
    """one token too few was kept (x > the k-th value drops the k-th itself): keep x >= the k-th value"""
    return pipeline(logits, temperature, top_k, top_p,
                    kept_k=lambda x, k: top_k_mask(x, k) if not k else x > _kth_highest(x, k))


@variant("top-k-off-by-one")
def _top_k_plus_one(logits, temperature=1.0, top_k=None, top_p=None):
    """one token too many was kept (the (k+1)-th value used as the threshold): keep x >= the k-th value"""
    return pipeline(logits, temperature, top_k, top_p, kept_k=lambda x, k: top_k_mask(x, k and k + 1))


# --- softmax: kata 02's bugs, those that can show over the last axis --------------------------------

# rows far apart: one near +1000, one near -1000 (all negative), one moderate; and a square batch
_PROBE = np.array([[1000.0, 999.0, 997.5], [-1000.0, -1001.0, -1003.5], [0.5, -1.0, 2.0]])


def _shows_here(piece):
    """False for a softmax bug that is right whenever the softmax runs over the last axis (an axis put
    back last, a guard for slices of only -inf, which top-k never leaves)."""
    with np.errstate(all="ignore"):
        return not np.allclose(piece(_PROBE), softmax(_PROBE), equal_nan=True)


def _with_softmax(piece):
    @variant(piece.variant_of)
    def run(logits, temperature=1.0, top_k=None, top_p=None):
        return pipeline(logits, temperature, top_k, top_p, softmax=piece)

    run.__doc__ = piece.__doc__.replace("`axis`", "the last axis (the vocabulary)")
    return run


SOFTMAX_BUGS = [_with_softmax(piece) for piece in variants_in(vars(softmax_pieces), of="softmax")
                if _shows_here(piece)]


# --- top-p ---------------------------------------------------------------------------------------

def _inclusive(probs, top_p, keep, at_least_one):
    order, sorted_probs = ranked(probs)
    kept = keep(np.cumsum(sorted_probs, axis=-1), top_p)
    if at_least_one:
        kept[..., 0] = True
    return _unrank(order, kept)


CROSSING = ("the token that crosses top_p was dropped (the cumulative sum INCLUDING a token was compared "
            "with top_p): keep a token while the sum of those before it is < top_p")


@variant("top-p-drops-crossing-token")
def _crossing_dropped(logits, temperature=1.0, top_k=None, top_p=None):
    return pipeline(logits, temperature, top_k, top_p,
                    kept_p=lambda p, t: _inclusive(p, t, lambda c, t: c < t, at_least_one=False))


@variant("top-p-drops-crossing-token")
def _crossing_dropped_at_most(logits, temperature=1.0, top_k=None, top_p=None):
    return pipeline(logits, temperature, top_k, top_p,
                    kept_p=lambda p, t: _inclusive(p, t, lambda c, t: c <= t, at_least_one=False))


@variant("top-p-drops-crossing-token")
def _crossing_dropped_one_kept(logits, temperature=1.0, top_k=None, top_p=None):
    return pipeline(logits, temperature, top_k, top_p,
                    kept_p=lambda p, t: _inclusive(p, t, lambda c, t: c <= t, at_least_one=True))


for _function in (_crossing_dropped, _crossing_dropped_at_most, _crossing_dropped_one_kept):
    _function.__doc__ = CROSSING


def _vocabulary_order(probs, top_p):
    before = np.cumsum(probs, axis=-1) - probs
    return before < top_p


def _ascending(probs, top_p):
    order = np.argsort(probs, axis=-1, kind="stable")
    sorted_probs = np.take_along_axis(probs, order, axis=-1)
    kept = np.cumsum(sorted_probs, axis=-1) - sorted_probs < top_p
    kept[..., 0] = True
    return _unrank(order, kept)


def _not_scattered(probs, top_p):
    """The ranked mask applied to tokens in vocabulary order (never put back through the sort)."""
    return np.take_along_axis(nucleus(probs, top_p), ranked(probs)[0], axis=-1)


UNSORTED = "the nucleus was not taken from the most probable tokens first: sort descending, cumulate, keep, " \
           "and put the mask back in vocabulary order"


@variant("top-p-unsorted")
def _unsorted(logits, temperature=1.0, top_k=None, top_p=None):
    return pipeline(logits, temperature, top_k, top_p, kept_p=_vocabulary_order)


@variant("top-p-unsorted")
def _sorted_ascending(logits, temperature=1.0, top_k=None, top_p=None):
    return pipeline(logits, temperature, top_k, top_p, kept_p=_ascending)


@variant("top-p-unsorted")
def _mask_not_scattered(logits, temperature=1.0, top_k=None, top_p=None):
    return pipeline(logits, temperature, top_k, top_p, kept_p=_not_scattered)


_unsorted.__doc__ = "the probabilities were cumulated in vocabulary order, not most probable first: " + \
                    UNSORTED.split(": ", 1)[1]
_sorted_ascending.__doc__ = "the probabilities were cumulated least probable first: " + UNSORTED.split(": ", 1)[1]
_mask_not_scattered.__doc__ = "the mask made in sorted order was applied in vocabulary order: " + \
                              UNSORTED.split(": ", 1)[1]


@variant("filter-before-temperature")
def _nucleus_before_temperature(logits, temperature=1.0, top_k=None, top_p=None):
    """the nucleus was measured on the distribution of temperature 1: divide by the temperature first,
    then filter"""
    if temperature == 0:
        return pipeline(logits, temperature, top_k, top_p)
    x = np.asarray(logits, np.float64)
    cold = softmax(np.where(top_k_mask(x, top_k), x, -np.inf))
    return pipeline(x, temperature, top_k, top_p, kept_p=lambda p, t: nucleus(cold, t))


@variant("no-renormalize")
def _not_renormalised(logits, temperature=1.0, top_k=None, top_p=None):
    """the kept probabilities were not renormalised: divide them by their sum"""
    return pipeline(logits, temperature, top_k, top_p, renormalise=False)


@variant("no-renormalize")
def _top_k_on_probabilities(logits, temperature=1.0, top_k=None, top_p=None):
    """top-k zeroed probabilities and nothing was renormalised: divide the kept ones by their sum"""
    x = np.asarray(logits, np.float64)
    if temperature == 0:
        return _one_hot(x)
    x = x / temperature
    probs = np.where(top_k_mask(x, top_k), softmax(x), 0.0)
    return np.where(nucleus(probs, top_p), probs, 0.0)


DISTRIBUTION_VARIANTS = variants_in(globals())


# --- sample_token --------------------------------------------------------------------------------

@variant("sample-off-by-one")
def _sample_left(probs, u):
    """u on a boundary of the cumulative sums picked the token BEFORE it (side="left", or cdf >= u): take
    the smallest i with cdf[i] > u"""
    p = np.asarray(probs, np.float64)
    cdf = np.cumsum(p, axis=-1)
    u = np.broadcast_to(np.asarray(u, np.float64), p.shape[:-1])[..., None]
    picked = (cdf < u).sum(axis=-1)
    last_positive = p.shape[-1] - 1 - np.argmax(p[..., ::-1] > 0, axis=-1)
    return np.where(picked < p.shape[-1], picked, last_positive)


SAMPLE_VARIANTS = [_sample_left]

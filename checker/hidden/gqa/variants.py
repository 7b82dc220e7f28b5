"""What code carrying each catalogued bug of kata 07 computes, to recognise it by its output.

Head variants take what repeat_kv takes; attention variants take what grouped_query_attention takes,
(q, k, v, causal), in float64, and return its output. Each swaps one step of the right computation
for the buggy one and keeps every other step right.
"""

import numpy as np

from checker.engine.testkit import variant, variants_in


# --- which kv head each query head reads ------------------------------------------------------------

def kv_head_of(i, h_q, h_kv):
    """The kv head that query head i reads: its group's, i // (h_q / h_kv)."""
    return i // (h_q // h_kv)


def tiled_head_of(i, h_q, h_kv):
    """The kv head that tiled kv heads (np.tile, or i % h_kv) give query head i."""
    return i % h_kv


def _gather(x, head_of, h_q):
    """x's heads rearranged so head i of the result is x's head head_of(i, h_q, h_kv)."""
    h_kv = x.shape[1]
    return x[:, [head_of(i, h_q, h_kv) for i in range(h_q)]]  # (b, h_q, n, d)


TILED = ("query head i read kv head i % h_kv, as np.tile (or a modulo index, or a reshape to (group, h_kv)) "
         "lays the kv heads out; it must read kv head i // (h_q / h_kv), its group's: repeat each kv head "
         "next to itself, np.repeat(k, group, axis=1)")


@variant("kv-heads-tiled")
def _repeat_tiled(x, n_rep):
    """the heads were tiled (np.tile(x, (1, n_rep, 1, 1))): head j is input head j % h_kv; it must be
    input head j // n_rep, each head's copies side by side (np.repeat(x, n_rep, axis=1))"""
    return np.tile(x, (1, n_rep, 1, 1))  # (b, h_kv * n_rep, n, d)


REPEAT_VARIANTS = [_repeat_tiled]


# --- attention, right and wrong ------------------------------------------------------------------------

def _softmax(scores, axis=-1, shift=True, empty="nan"):
    """Softmax over `axis` (the keys); without `shift` exp meets the raw scores. A slice of only -inf gives
    NaN (a plain softmax) or zeros (`empty="zero"`, a guarded one)."""
    with np.errstate(all="ignore"):
        peak = scores.max(axis=axis, keepdims=True) if shift else 0.0
        if empty == "zero":
            peak = np.where(np.isneginf(peak), 0.0, peak)
        e = np.exp(scores - peak)
        total = e.sum(axis=axis, keepdims=True)
        if empty == "zero":
            return np.divide(e, total, out=np.zeros_like(e), where=total != 0)
        return e / total


def bottom_right(n_q, n_k):
    """True where query t (position n_k - n_q + t) may see key j: j <= n_k - n_q + t."""
    return np.arange(n_k) <= np.arange(n_k - n_q, n_k)[:, None]  # (n_q, n_k)


def top_left(n_q, n_k):
    return np.tril(np.ones((n_q, n_k), dtype=bool))  # (n_q, n_k)


def upper(n_q, n_k):
    """The flipped mask: query t sees keys from its own position n_k - n_q + t on, the future."""
    return np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)  # (n_q, n_k)


def upper_top_left(n_q, n_k):
    return np.triu(np.ones((n_q, n_k), dtype=bool))  # (n_q, n_k)


def strict(n_q, n_k):
    """Query t sees keys before its own position only: j < n_k - n_q + t."""
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q - 1)  # (n_q, n_k)


def strict_first_kept(n_q, n_k):
    """strict, with the query it leaves without a key given its own key back (blocked[0, 0] = False)."""
    allowed, right = strict(n_q, n_k), bottom_right(n_q, n_k)
    empty = ~allowed.any(axis=-1) & right.any(axis=-1)  # (n_q,): rows the blocked diagonal left without a key
    allowed[empty, n_k - n_q + np.flatnonzero(empty)] = True
    return allowed


def future_only(n_q, n_k):
    """The mask read the wrong way round: query t sees the keys after its position only."""
    return ~bottom_right(n_q, n_k)  # (n_q, n_k)


def sees_next(n_q, n_k):
    """Off by one the other way (outside the catalogue): query t also sees key n_k - n_q + t + 1."""
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)  # (n_q, n_k)


def _attention(q, k, v, causal=True, *, head_of=kv_head_of, scale=None, mask=bottom_right, after=None,
               fill=-np.inf, arithmetic=None, **softmax):
    """Grouped-query attention with one step swapped for a buggy one.

    `scale` (a function of d and d_v) replaces 1/sqrt(d); `fill` is what blocked scores become; `after`
    (a function of weights and the mask) replaces masking the scores with editing the weights; `softmax`
    passes axis, shift and empty on to the softmax.
    """
    h_q, n_q, d = q.shape[1:]
    n_k, d_v = k.shape[2], v.shape[3]
    k, v = _gather(k, head_of, h_q), _gather(v, head_of, h_q)  # (b, h_q, n_k, d), (b, h_q, n_k, d_v)
    scores = q @ np.swapaxes(k, -1, -2) * (scale(d, d_v) if scale else 1 / np.sqrt(d))  # (b, h_q, n_q, n_k)
    allowed = mask(n_q, n_k) if causal and mask else np.ones((n_q, n_k), dtype=bool)
    if arithmetic is not None:  # the bool mask added to or multiplied with the scores
        return _softmax(arithmetic(scores, allowed), **softmax) @ v
    if after is None:
        return _softmax(np.where(allowed, scores, fill), **softmax) @ v  # (b, h_q, n_q, d_v)
    return after(_softmax(scores), allowed) @ v


@variant("kv-heads-tiled")
def _tiled(q, k, v, causal=True):
    return _attention(q, k, v, causal, head_of=tiled_head_of)


@variant("missing-scale")
def _unscaled(q, k, v, causal=True):
    """the scores were never divided by sqrt(d): divide q . k by the square root of the key size d"""
    return _attention(q, k, v, causal, scale=lambda d, d_v: 1.0)


@variant("scale-by-dk")
def _by_d(q, k, v, causal=True):
    """the scores were divided by d, not by sqrt(d): the scale is 1/sqrt(d), d the size of q and k"""
    return _attention(q, k, v, causal, scale=lambda d, d_v: 1 / d)


@variant("scale-inverted")
def _times_root_d(q, k, v, causal=True):
    """the scores were multiplied by sqrt(d) (divided by d ** -0.5, which is already the inverse): divide
    by sqrt(d)"""
    return _attention(q, k, v, causal, scale=lambda d, d_v: np.sqrt(d))


@variant("mask-top-left")
def _top_left(q, k, v, causal=True):
    """the causal mask is aligned top-left (np.tril(np.ones((n_q, n_k)))); the queries are the LAST n_q of
    the n_k positions, so query t sees keys 0 to n_k - n_q + t"""
    return _attention(q, k, v, causal, mask=top_left)


FLIPPED = ("the upper triangle was kept (np.triu where np.tril belongs): each query saw the keys from its own "
           "position on, the FUTURE, instead of keys 0 to its position")


@variant("mask-flipped")
def _flipped(q, k, v, causal=True):
    return _attention(q, k, v, causal, mask=upper)


@variant("mask-flipped")
def _flipped_top_left(q, k, v, causal=True):
    return _attention(q, k, v, causal, mask=upper_top_left)


DIAGONAL = ("the mask blocked each query's own position (j < n_k - n_q + t, or triu(k=0) taken as the blocked "
            "part), so no query saw itself (and with n_q = n_k query 0 saw no key at all): query t must see keys 0 "
            "to n_k - n_q + t, itself included")


def _blocks_diagonal(q, k, v, causal, **softmax):
    return _attention(q, k, v, causal, mask=strict, **softmax)


@variant("mask-blocks-diagonal")
def _diagonal(q, k, v, causal=True):
    return _blocks_diagonal(q, k, v, causal)


@variant("mask-blocks-diagonal")
def _diagonal_zero(q, k, v, causal=True):
    return _blocks_diagonal(q, k, v, causal, empty="zero")


@variant("mask-blocks-diagonal")
def _diagonal_finite_fill(q, k, v, causal=True):
    return _blocks_diagonal(q, k, v, causal, fill=-1e9)


@variant("mask-blocks-diagonal")
def _diagonal_first_kept(q, k, v, causal=True):
    """the mask blocked each query's own position (j < n_k - n_q + t, or triu(k=0) taken as the blocked part),
    and only the query left with no key (blocked[0, 0] = False) got its own key back: query t must see keys 0
    to n_k - n_q + t, itself included"""
    return _attention(q, k, v, causal, mask=strict_first_kept)


INVERTED = ("the mask was read the wrong way round (np.where(mask, -inf, scores) with True for the keys a query "
            "may see): each query saw only the keys after its position, and the last query none; a query sees keys "
            "0 to n_k - n_q + t")


@variant("mask-inverted")
def _inverted(q, k, v, causal=True):
    return _attention(q, k, v, causal, mask=future_only)


@variant("mask-inverted")
def _inverted_zero(q, k, v, causal=True):
    return _attention(q, k, v, causal, mask=future_only, empty="zero")


@variant("mask-inverted")
def _inverted_finite_fill(q, k, v, causal=True):
    return _attention(q, k, v, causal, mask=future_only, fill=-1e9)


@variant("mask-arithmetic")
def _mask_added(q, k, v, causal=True):
    """the bool mask was added to the scores (True = +1): blocked scores must be replaced with -inf, not shifted"""
    return _attention(q, k, v, causal, arithmetic=lambda scores, allowed: scores + allowed)


@variant("mask-arithmetic")
def _mask_multiplied(q, k, v, causal=True):
    """the bool mask was multiplied into the scores, so blocked scores became 0, not -inf"""
    return _attention(q, k, v, causal, arithmetic=lambda scores, allowed: scores * allowed)


WRONG_AXIS = ("the softmax ran over the queries (axis -2), not over the keys (axis -1): each query's weights must "
              "sum to 1 over the keys it sees")


@variant("softmax-wrong-axis")
def _over_queries(q, k, v, causal=True):
    return _attention(q, k, v, causal, axis=-2)


@variant("softmax-wrong-axis")
def _over_queries_zero(q, k, v, causal=True):
    return _attention(q, k, v, causal, axis=-2, empty="zero")


@variant("no-max-shift")
def _unshifted(q, k, v, causal=True):
    """exp of the raw scores overflowed to inf (or underflowed to 0), and inf/inf (0/0) is NaN: subtract each
    row's maximum before np.exp"""
    return _attention(q, k, v, causal, shift=False)


@variant("causal-ignored")
def _never_masks(q, k, v, causal=True):
    """no causal mask was applied although causal=True (the default): query t must see keys 0 to
    n_k - n_q + t only"""
    return _attention(q, k, v, False)


@variant("causal-ignored")
def _always_masks(q, k, v, causal=True):
    """a causal mask was applied although causal=False: every query must see every key"""
    return _attention(q, k, v, True)


@variant("causal-ignored")
def _always_masks_top_left(q, k, v, causal=True):
    """a causal mask was applied although causal=False: every query must see every key"""
    if causal:
        raise ValueError("with causal=True this is mask-top-left's output")
    return _attention(q, k, v, True, mask=top_left)


def _zeroed(weights, allowed):
    return weights * allowed


def _renormalised(weights, allowed):
    kept = weights * allowed
    total = kept.sum(axis=-1, keepdims=True)
    return np.divide(kept, total, out=np.zeros_like(kept), where=total != 0)


def _renormalised_nan(weights, allowed):
    kept = weights * allowed
    return kept / kept.sum(axis=-1, keepdims=True)


MASK_AFTER = ("the mask zeroed weights after the softmax: the future had already taken its share, so the "
              "visible weights no longer sum to 1 (and renormalising cannot bring back weights that "
              "underflowed to 0); block the scores before the softmax")


@variant("mask-after-softmax")
def _masked_after(q, k, v, causal=True):
    return _attention(q, k, v, causal, after=_zeroed)


@variant("mask-after-softmax")
def _masked_after_renormalised(q, k, v, causal=True):
    return _attention(q, k, v, causal, after=_renormalised)


@variant("mask-after-softmax")
def _masked_after_renormalised_nan(q, k, v, causal=True):
    return _attention(q, k, v, causal, after=_renormalised_nan)


for _functions, _doc in (((_masked_after, _masked_after_renormalised, _masked_after_renormalised_nan), MASK_AFTER),
                         ((_tiled,), TILED), ((_flipped, _flipped_top_left), FLIPPED),
                         ((_diagonal, _diagonal_zero, _diagonal_finite_fill), DIAGONAL),
                         ((_inverted, _inverted_zero, _inverted_finite_fill), INVERTED),
                         ((_over_queries, _over_queries_zero), WRONG_AXIS)):
    for _function in _functions:
        _function.__doc__ = _doc
del _functions, _doc, _function  # no loop name may stay behind as a variant


# --- look-alikes outside the catalogue ----------------------------------------------------------------
# No @variant: they name nothing. When one of them also gives the learner's output, the input cannot tell
# a catalogued bug from it, so nothing is named; when only one of them does, the message says what it is.

def _sees_next(q, k, v, causal=True):
    """each query also saw the key right after its position (a mask off by one: tril with k=n_k - n_q + 1);
    query t sees keys 0 to n_k - n_q + t"""
    return _attention(q, k, v, causal, mask=sees_next)


def _by_root_dv(q, k, v, causal=True):
    """the scores were divided by sqrt(d_v), the size of the values: the scale is 1/sqrt(d), d the size of q
    and k"""
    return _attention(q, k, v, causal, scale=lambda d, d_v: 1 / np.sqrt(d_v))


GQA_VARIANTS = variants_in(globals())[1:]  # every attention variant (the first is repeat_kv's)
LOOKALIKES = [_sees_next, _by_root_dv]

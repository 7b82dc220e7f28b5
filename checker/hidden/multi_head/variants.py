"""What code carrying each catalogued bug of kata 04 computes, to recognise it by its output.

Split and merge variants take what split_heads and merge_heads take; attention variants take what
multi_head_attention takes, in float64, and return its output. Attention is built from kata 03's pieces,
so the bugs of katas 01-03 that can happen here (a scale, a mask that blocks the diagonal or the past, a
mask applied after the softmax) keep their ids.
"""

from itertools import combinations

import numpy as np

from checker.hidden.causal_mask import variants as pieces
from checker.hidden.scores import variants as scale
from checker.engine.testkit import variant, variants_in


# --- the right layout, and what the catalogued bugs do to it ---------------------------------------

def split_heads(x, n_heads):
    b, n, d_model = x.shape
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)  # (b, h, n, d_head)


def merge_heads(x):
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)  # (b, n, d_model)


@variant("reshape-without-transpose", of="split")
def _split_by_reshape(x, n_heads):
    """a reshape straight to (b, h, n, d_head) keeps the memory order, so each head's rows are chunks of
    other tokens: reshape to (b, n, h, d_head), THEN swap the heads and tokens axes"""
    b, n, d_model = x.shape
    return x.reshape(b, n_heads, n, d_model // n_heads)


@variant("heads-interleaved", of="split")
def _split_strided(x, n_heads):
    """head i got the strided channels i, i+h, i+2h, ... (a reshape to (b, n, d_head, h)); head i owns
    the contiguous channels [i*d_head, (i+1)*d_head)"""
    b, n, d_model = x.shape
    return x.reshape(b, n, d_model // n_heads, n_heads).transpose(0, 3, 1, 2)


@variant("heads-batch-order", of="split")
def _split_heads_first(x, n_heads):
    """the heads were folded in front of the batch axis, (h, b), then read back as (b, h): examples are
    mixed"""
    b, n, d_model = x.shape
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(2, 0, 1, 3).reshape(b, n_heads, n, -1)


@variant("heads-batch-order", of="split")
def _split_heads_axis_first(x, n_heads):
    """the heads axis came in front of the batch axis: (h, b, n, d_head) instead of (b, h, n, d_head)"""
    b, n, d_model = x.shape
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(2, 0, 1, 3)


@variant("merge-without-transpose", of="merge")
def _merge_by_reshape(x):
    """a reshape straight from (b, h, n, d_head) to (b, n, d_model) puts whole heads where tokens belong:
    swap the heads and tokens axes back, (b, n, h, d_head), THEN reshape"""
    b, h, n, d_head = x.shape
    return x.reshape(b, n, h * d_head)


@variant("heads-interleaved", of="merge")
def _merge_strided(x):
    """head i was written to the strided channels i, i+h, i+2h, ...; it owns the contiguous channels
    [i*d_head, (i+1)*d_head)"""
    b, h, n, d_head = x.shape
    return x.transpose(0, 2, 3, 1).reshape(b, n, h * d_head)


@variant("heads-batch-order", of="merge")
def _merge_heads_first(x):
    """the heads were unfolded as if they came before the batch axis, (h, b): examples are mixed"""
    b, h, n, d_head = x.shape
    return x.reshape(h, b, n, d_head).transpose(1, 2, 0, 3).reshape(b, n, h * d_head)


@variant("heads-batch-order", of="merge")
def _merge_heads_axis_first(x):
    """the input was read as (h, b, n, d_head), heads before the batch axis; it is (b, h, n, d_head)"""
    h, b, n, d_head = x.shape
    return x.transpose(1, 2, 0, 3).reshape(b, n, h * d_head)


SPLIT_VARIANTS = variants_in(globals(), of="split")
MERGE_VARIANTS = variants_in(globals(), of="merge")


# --- multi-head attention, right and wrong ------------------------------------------------------------

softmax = pieces.softmax  # kata 02's, stable


def _attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True, *, split=split_heads, merge=merge_heads,
               divisor=scale.right_divisor, mask=pieces.right_mask, masking=pieces.fill_guarded,
               w_in=lambda w: w, w_out=lambda w: w, project=True, product=scale.right_product,
               softmax=pieces.softmax):
    """Multi-head attention with one of its steps swapped for a buggy one."""
    b, n, d_model = x.shape
    q, k, v = (split(x @ w_in(w), n_heads) for w in (w_q, w_k, w_v))  # (b, h, n, d_head)
    scores = pieces.scores(q, k, divisor, product)  # (b, h, n, n)
    allowed = mask(n, n) if causal else np.ones((n, n), dtype=bool)
    heads = merge(masking(scores, allowed, softmax) @ v)  # (b, n, d_model)
    return heads @ w_out(w_o) if project else heads


def _built(bug_id, doc, **swapped):
    """An attention variant: kata 04's attention with the pieces in `swapped` taken from a bug."""

    def mha(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
        return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, **swapped)

    mha.__doc__ = " ".join(doc.split()).replace("d_k", "d_head")
    return variant(bug_id, of="mha")(mha)


# the bugs of katas 01-03 that multi-head attention can show, built from their own variants. Its scores are
# square (n, n), so a missing keepdims and k @ q^T run silently; a top-left mask is the right one, k.T of a
# (b, h, n, d_head) array does not run, and every query sees itself, so no row is ever empty.
EARLIER_SCALES = ("missing-scale", "scale-by-dk", "scale-inverted", "scale-by-seq-len")
EARLIER_MASKS = ("mask-blocks-diagonal", "mask-flipped")
FROM_EARLIER_KATAS = (
    [_built(divisor.variant_of, divisor.__doc__, divisor=divisor)
     for divisor in variants_in(vars(scale), of="divisor") if divisor.variant_of in EARLIER_SCALES]
    + [_built(product.variant_of, product.__doc__, product=product)
       for product in variants_in(vars(scale), of="product") if product.variant_of != "batch-transpose"]
    + [_built(mask.variant_of, mask.__doc__, mask=mask, masking=fill)
       for mask in variants_in(vars(pieces), of="mask") if mask.variant_of in EARLIER_MASKS
       for fill in pieces.HONEST_FILLS]
    + [_built("mask-after-softmax", pieces.zeroed_after.__doc__, masking=pieces.zeroed_after)]
    + [_built("mask-arithmetic", m.__doc__, masking=m) for m in pieces.MASK_ARITHMETIC]
    + [_built("mask-inverted", m.__doc__, masking=m) for m in pieces.MASK_INVERTED]
    + [_built("softmax-wrong-axis", "the softmax ran over the queries (axis -2), not over the keys (axis -1)",
              masking=pieces.fill_neg_inf, softmax=pieces.over_queries)]
    + [_built(s.variant_of, s.__doc__, softmax=s) for s in pieces.BUGGY_SOFTMAXES])


@variant("reshape-without-transpose", of="mha")
def _mha_split_by_reshape(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """q, k and v were split by a reshape straight to (b, h, n, d_head), which mixes tokens across heads:
    reshape to (b, n, h, d_head), THEN transpose"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, split=_split_by_reshape)


@variant("reshape-without-transpose", of="mha")
def _mha_reshape_both_ways(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """q, k and v were split by a reshape straight to (b, h, n, d_head), which mixes tokens across heads
    (reshaping back afterwards does not unmix them): reshape to (b, n, h, d_head), THEN transpose"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, split=_split_by_reshape, merge=_merge_by_reshape)


@variant("merge-without-transpose", of="mha")
def _mha_merge_by_reshape(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """the heads were merged by a reshape straight from (b, h, n, d_head) to (b, n, d_model), which puts
    whole heads where tokens belong: transpose to (b, n, h, d_head), THEN reshape"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, merge=_merge_by_reshape)


@variant("heads-interleaved", of="mha")
def _mha_strided_both_ways(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """each head worked on the strided channels i, i+h, i+2h, ... (a reshape to (b, n, d_head, h)); head i
    owns the contiguous channels [i*d_head, (i+1)*d_head)"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, split=_split_strided, merge=_merge_strided)


@variant("heads-interleaved", of="mha")
def _mha_split_strided(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """the split gave head i the strided channels i, i+h, i+2h, ...; head i owns the contiguous channels
    [i*d_head, (i+1)*d_head)"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, split=_split_strided)


@variant("heads-interleaved", of="mha")
def _mha_merge_strided(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """the merge wrote head i to the strided channels i, i+h, i+2h, ...; head i owns the contiguous
    channels [i*d_head, (i+1)*d_head)"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, merge=_merge_strided)


@variant("heads-batch-order", of="mha")
def _mha_split_heads_first(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """the heads were folded in front of the batch axis, (h, b), and read back as (b, h): each example's
    output holds heads of other examples"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, split=_split_heads_first)


@variant("heads-batch-order", of="mha")
def _mha_merge_heads_first(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """the heads were merged as if they came before the batch axis, (h, b): each example's output holds
    heads of other examples"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, merge=_merge_heads_first)


def by_d_model(d_model):
    """The divisor of code that scales by sqrt(d_model), the model's width."""
    return lambda d_head, n_q, n_k: np.sqrt(d_model)


@variant("scale-by-d-model", of="mha")
def _mha_scale_by_d_model(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """the scores were divided by sqrt(d_model); each head's keys have d_head = d_model / h channels, so
    divide by sqrt(d_head)"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, divisor=by_d_model(x.shape[-1]))


@variant("missing-output-projection", of="mha")
def _mha_without_w_o(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """this is the merged heads before the output projection: W_O was never applied"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal, project=False)


def _transposing(which):
    """What code computes that uses the weights named in `which` as (out, in) matrices: x @ W.T."""

    def transposed(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
        given = {"w_q": w_q, "w_k": w_k, "w_v": w_v, "w_o": w_o}
        flipped = {name: w.T if name in which else w for name, w in given.items()}
        return _attention(x, *flipped.values(), n_heads, causal)

    transposed.__doc__ = (f"{' and '.join(which)} used as x @ W.T, an (out, in) matrix; here W is (in, out): "
                          "x @ W")
    return variant("weight-orientation", of="mha")(transposed)


# every weight, some of them or one alone: 15 ways, all of them the same bug
TRANSPOSED_WEIGHTS = [_transposing(which) for size in (4, 3, 2, 1)
                      for which in combinations(("w_q", "w_k", "w_v", "w_o"), size)]


@variant("causal-ignored", of="mha")
def _mha_never_masks(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """no causal mask was applied although causal=True (the default): query i must see keys 0..i only"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False)


@variant("causal-ignored", of="mha")
def _mha_always_masks(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """the causal mask was applied although causal=False: every query must see every key"""
    return _attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True)


MHA_VARIANTS = variants_in(globals(), of="mha")

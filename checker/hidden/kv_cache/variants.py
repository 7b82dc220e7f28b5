"""A sequence fed to a KV cache in chunks, and what code carrying each catalogued bug of kata 05
outputs for it, to recognise the bug by its output.

The attention inside each call is built from kata 03's pieces (scores with kata 01's divisors, kata 02's
softmax, a masking), so the bugs of katas 01-04 that a cached decode can show keep their ids here.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from checker.hidden.causal_mask import variants as pieces
from checker.hidden.multi_head import variants as heads
from checker.hidden.multi_head.variants import by_d_model, merge_heads, split_heads
from checker.hidden.scores import variants as scale
from checker.engine.testkit import variant, variants_in


# --- a sequence fed to a cache, and what the catalogued bugs output for it ----------------------------

@dataclass(frozen=True)
class Plan:
    """One sequence x (b, N, d_model) fed to a cache: `seeded` positions put in with cache.append (their
    keys and values projected here), then one cached_attention call per entry of `chunks`."""

    x: np.ndarray
    weights: tuple  # per call: (w_q, w_k, w_v, w_o); the seeded keys use the first call's
    n_heads: int
    chunks: tuple
    seeded: int = 0

    @property
    def uniform(self):
        """Every call has the same weights."""
        return all(all(np.array_equal(a, b) for a, b in zip(call, self.weights[0])) for call in self.weights)

    def starts(self):
        """(first position, t) of each call."""
        start = self.seeded
        for t in self.chunks:
            yield start, t
            start += t

    def as_float64(self):
        x = np.asarray(self.x, np.float64)
        weights = tuple(tuple(np.asarray(w, np.float64) for w in call) for call in self.weights)
        return Plan(x, weights, self.n_heads, self.chunks, self.seeded)

    def describe(self):
        b, _, d_model = self.x.shape
        dtype = "" if self.x.dtype == np.float64 else f" {self.x.dtype}"
        seeded = f"after cache.append of {self.seeded} positions, " if self.seeded else ""
        if set(self.chunks) == {1}:
            calls = f"{len(self.chunks)} single steps"
        elif len(self.chunks) > 1 and set(self.chunks[1:]) == {1}:
            calls = f"a prefill of {self.chunks[0]} tokens then {len(self.chunks) - 1} single steps"
        elif len(self.chunks) == 1:
            calls = f"one call of {self.chunks[0]} tokens"
        else:
            calls = f"calls of {', '.join(str(t) for t in self.chunks)} tokens"
        return f"cached_attention {seeded}{calls} (b={b}, d_model={d_model}{dtype}, n_heads={self.n_heads})"


def uniform_plan(x, weights, n_heads, chunks, seeded=0):
    return Plan(x, (weights,) * len(chunks), n_heads, tuple(chunks), seeded)


def _bottom_right(t, past):
    """(t, past + t): new query i is position past + i and sees every position up to itself."""
    n = past + t
    return np.arange(n) <= np.arange(past, n)[:, None]


def _replay(plan, visible=_bottom_right, keeps_past=True, recomputes=False, divisor=scale.right_divisor,
            masking=pieces.fill_guarded, softmax=pieces.softmax, product=scale.right_product,
            split=split_heads, merge=merge_heads, weights_of=lambda call: call, project=True):
    """The outputs (b, sum(chunks), d_model) of the plan's calls, one step of the cache swapped for a buggy one.

    keeps_past: True, the cache keeps every position; False, each call sees only its own tokens;
    "previous", the cache holds only the chunk before (what a cache that keeps just the last chunk gives).
    split, merge, weights_of (a call's four weights as the code uses them) and project are kata 04's steps:
    they act on the calls, not on the seeded positions, which the caller appended itself.
    """
    x, h = plan.x, plan.n_heads
    _, w_k, w_v, _ = plan.weights[0]
    k_cache, v_cache = split_heads(x[:, :plan.seeded] @ w_k, h), split_heads(x[:, :plan.seeded] @ w_v, h)  # (b, h, s, d_head)
    outputs = []
    for (start, t), call in zip(plan.starts(), plan.weights):
        w_q, w_k, w_v, w_o = weights_of(call)
        new = x[:, start:start + t]  # (b, t, d_model)
        if recomputes:
            k_cache, v_cache = split_heads(x[:, :start] @ w_k, h), split_heads(x[:, :start] @ w_v, h)
        if not keeps_past:
            k_cache, v_cache = k_cache[:, :, :0], v_cache[:, :, :0]
        past = k_cache.shape[2]
        k_all = np.concatenate([k_cache, split(new @ w_k, h)], axis=2)  # (b, h, past + t, d_head)
        v_all = np.concatenate([v_cache, split(new @ w_v, h)], axis=2)
        q = split(new @ w_q, h)  # (b, h, t, d_head)
        scores = pieces.scores(q, k_all, divisor, product)  # (b, h, t, past + t)
        weights = masking(scores, visible(t, past), softmax)
        merged = merge(weights @ v_all)  # (b, t, d_model)
        outputs.append(merged @ w_o if project else merged)
        k_cache, v_cache = (k_all, v_all) if keeps_past != "previous" else (k_all[:, :, past:], v_all[:, :, past:])
    return np.concatenate(outputs, axis=1)


@variant("mask-top-left", of="attention")
def _top_left(plan):
    """new query i saw keys 0..i, the top-left corner of its (t, n) scores; the new queries are the LAST
    t of the n cached positions, so query i sees keys j <= n - t + i"""
    return _replay(plan, visible=lambda t, past: np.tril(np.ones((t, past + t), dtype=bool)))


@variant("mask-top-left", of="attention")
def _top_left_chunks(plan):
    """a chunk's query i saw keys 0..i, the top-left corner of its (t, n) scores (decode steps, unmasked,
    were right): the new queries are the LAST t of the n cached positions, so query i sees keys j <= n - t + i"""
    return _replay(plan, visible=lambda t, past: np.ones((1, past + 1), dtype=bool) if t == 1 else
                   np.tril(np.ones((t, past + t), dtype=bool)))


def _missing_mask_shows(plan):
    """A missing mask differs from one offset by a position only in a chunk of 3 or more: in a chunk of 2,
    seeing the next token is seeing every token. Only there may a missing mask be named."""
    if max(plan.chunks) < 3:
        raise ValueError("no chunk tells a missing mask from an offset one")


@variant("no-mask-in-prefill", of="attention")
def _no_mask(plan):
    """the new tokens of a call with t > 1 saw the tokens after them: a prefill or a chunk needs the
    causal mask (only a single decode step may see every cached key)"""
    _missing_mask_shows(plan)
    return _replay(plan, visible=lambda t, past: np.ones((t, past + t), dtype=bool))


@variant("no-mask-in-prefill", of="attention")
def _mask_only_first_prefill(plan):
    """the chunks after the first prefill saw the tokens after them: every call with t > 1 needs the
    causal mask, not only the one on an empty cache"""
    _missing_mask_shows(plan)
    return _replay(plan, visible=lambda t, past: _bottom_right(t, past) if past == 0 else
                   np.ones((t, past + t), dtype=bool))


@variant("attend-before-append", of="attention")
def _past_only(plan):
    """the new tokens attended to the cache as it was before them, so none saw its own key and value:
    append the new keys and values first, then attend over everything cached"""
    return _replay(plan, visible=lambda t, past: _bottom_right(t, past) if past == 0 else
                   np.arange(past + t) < np.full((t, 1), past))


@variant("cache-overwritten", of="attention")
def _last_chunk_only(plan):
    """each call saw only its own tokens: the cache kept only the last chunk; append must keep every
    earlier position"""
    return _replay(plan, keeps_past=False)


@variant("cache-overwritten", of="attention")
def _previous_chunk_only(plan):
    """each call saw only the chunk before it and its own tokens: the cache kept only the last chunk
    appended; it must keep every earlier position"""
    return _replay(plan, keeps_past="previous")


@variant("recompute-every-step", of="attention")
def _recomputed(plan):
    """the past positions' keys and values were computed again, with this call's weights: read them from
    the cache, as they were appended"""
    return _replay(plan, recomputes=True)


def _built(bug_id, doc, **swapped):
    """An attention variant: the plan replayed with the pieces in `swapped` taken from a bug."""

    def replayed(plan):
        return _replay(plan, **swapped)

    replayed.__doc__ = " ".join(doc.split()).replace("d_k", "d_head")
    return variant(bug_id, of="attention")(replayed)


@variant("scale-by-d-model", of="attention")
def _scale_by_d_model(plan):
    """the scores were divided by sqrt(d_model); each head's keys have d_head = d_model / h channels, so
    divide by sqrt(d_head)"""
    return _replay(plan, divisor=by_d_model(plan.x.shape[-1]))


def _by_new_tokens(plan):
    """scale-by-seq-len with t, the new tokens: on single steps alone (t = 1) that is missing-scale, so it is
    named only where a call has t > 1."""
    if max(plan.chunks) < 2:
        raise ValueError("single steps cannot tell sqrt(t) from a missing scale")
    return _replay(plan, divisor=scale._by_queries)


_by_new_tokens.__doc__ = scale._by_queries.__doc__.replace("n_q", "t, the new tokens,").replace("d_k", "d_head")
variant("scale-by-seq-len", of="attention")(_by_new_tokens)


def _shallow_fill(scores, allowed, softmax=pieces.softmax):
    """the blocked scores were filled with a finite number (-1e4 here), and real scores went below it: the
    blocked keys took the weight; fill with -inf (a query always sees itself here)"""
    return softmax(np.where(allowed, scores, -1e4))


# the bugs of katas 01-04 that a cached decode can show, built from their own variants. A call's scores are
# (t, n), square only in a prefill on an empty cache: a missing keepdims and k @ q^T run only there.
EARLIER_SCALES = ("missing-scale", "scale-by-dk", "scale-inverted")
FROM_EARLIER_KATAS = (
    [_built(divisor.variant_of, divisor.__doc__, divisor=divisor)
     for divisor in variants_in(vars(scale), of="divisor") if divisor.variant_of in EARLIER_SCALES]
    + [_built("scale-by-seq-len", scale._by_keys.__doc__.replace("n_k", "n, the cached positions,"),
              divisor=scale._by_keys)]
    + [_built(product.variant_of, product.__doc__, product=product)
       for product in variants_in(vars(scale), of="product") if product.variant_of != "batch-transpose"]
    + [_built(mask.variant_of, mask.__doc__, visible=lambda t, past, mask=mask: mask(t, past + t), masking=fill)
       for mask in variants_in(vars(pieces), of="mask") if mask.variant_of in ("mask-blocks-diagonal", "mask-flipped")
       for fill in pieces.HONEST_FILLS]
    + [_built("mask-arithmetic", m.__doc__, masking=m) for m in pieces.MASK_ARITHMETIC]
    + [_built("mask-inverted", m.__doc__, masking=m) for m in pieces.MASK_INVERTED]
    + [_built("fill-too-shallow", _shallow_fill.__doc__, masking=_shallow_fill)]
    + [_built("mask-after-softmax", pieces.zeroed_after.__doc__, masking=pieces.zeroed_after),
       _built("softmax-wrong-axis", "the softmax ran over the new queries (axis -2), not over the keys (axis -1)",
              masking=pieces.fill_neg_inf, softmax=pieces.over_queries)]
    + [_built(s.variant_of, s.__doc__, softmax=s) for s in pieces.BUGGY_SOFTMAXES])


# the bugs of kata 04 that a cached call can show (split_heads and merge_heads are given, but may be edited):
# its own split and merge variants, the merged heads without W_O, and weights used as (out, in) matrices. A
# split or merge by reshape is right on a decode step (t = 1): only a call with t > 1 shows it.
FROM_KATA_04 = (
    [_built(f.variant_of, f.__doc__, split=f) for f in heads.SPLIT_VARIANTS]
    + [_built(f.variant_of, f.__doc__, merge=f) for f in heads.MERGE_VARIANTS]
    + [_built("reshape-without-transpose", heads._mha_reshape_both_ways.__doc__, split=heads._split_by_reshape,
              merge=heads._merge_by_reshape),
       _built("heads-interleaved", heads._mha_strided_both_ways.__doc__, split=heads._split_strided,
              merge=heads._merge_strided),
       _built("missing-output-projection", heads._mha_without_w_o.__doc__, project=False)])


def _transposing(which):
    """What code computes that uses the weights named in `which` as (out, in) matrices: x @ W.T."""
    names = ("w_q", "w_k", "w_v", "w_o")

    def flipped(call):
        return tuple(w.T if name in which else w for name, w in zip(names, call))

    return _built("weight-orientation", f"{' and '.join(which)} used as x @ W.T, an (out, in) matrix; here W is "
                  "(in, out): x @ W", weights_of=flipped)


TRANSPOSED_WEIGHTS = [_transposing(which) for size in (4, 3, 2, 1)
                      for which in combinations(("w_q", "w_k", "w_v", "w_o"), size)]


@variant("cache-wrong-axis", of="append")
def _along_heads(chunks):
    """the new positions were appended along axis 1, the heads; positions are axis 2 of (b, h, n, d_head)"""
    return np.concatenate(chunks, axis=1)


@variant("cache-wrong-axis", of="append")
def _along_batch(chunks):
    """the new positions were appended along axis 0, the batch; positions are axis 2 of (b, h, n, d_head)"""
    return np.concatenate(chunks, axis=0)


@variant("cache-wrong-axis", of="append")
def _along_channels(chunks):
    """the new positions were appended along the last axis, d_head; positions are axis 2 of (b, h, n, d_head)"""
    return np.concatenate(chunks, axis=-1)


@variant("cache-overwritten", of="append")
def _last_only(chunks):
    """append returned only the last chunk: the cache replaced what it held instead of adding to it"""
    return chunks[-1]


@variant("cache-overwritten", of="append")
def _previous_and_last(chunks):
    """append returned the chunk before and the new one, but kept only the new one: the next call loses
    everything older"""
    return np.concatenate(chunks[-2:], axis=2)


ATTENTION_VARIANTS = variants_in(globals(), of="attention")
APPEND_VARIANTS = variants_in(globals(), of="append")

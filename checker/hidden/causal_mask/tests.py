"""Hidden tests for kata 03: causal_mask(n_q, n_k=None) and attention(q, k, v, mask=None).

Shapes are chosen so the classic bugs cannot hide: n_q != n_k (2 vs 5, 1 vs 4, 5 vs 2), batches and
heads, d_k != n, real scores of +-1e5, padding masks that leave a query no key at all, float16.
A failure is diagnosed by what the output does (rows that do not sum to 1, a query that saw a
blocked key, NaN or a mix of values for a query with nothing to see), never by reading the source.
Attention tests pass the reference's masks, so a wrong causal_mask shows only in the mask tests
and in the one test that chains the two.
"""

import numpy as np

from checker.hidden.causal_mask import variants as pieces
from checker.hidden.causal_mask.variants import MASK_VARIANTS, WEIGHT_VARIANTS
from checker.engine.telling import scale_confirmation
from checker.sandbox import LearnerError
from checker.engine.crashes import torch_fill_overflows
from checker.engine.kept import expect_kept
from checker.engine.testkit import weight
from checker.engine.testkit import Failure, Suspects, WeightGrid, as_array, as_pair, bug, call_text, close, expect_float, \
    expect_precision, expect_unchanged, first_difference, full_transpose_error, full_transpose_failure, \
    numbers_apart, show, tolerance

API = {"causal_mask": ("n_q", "n_k"), "attention": ("q", "k", "v", "mask")}
SOFTMAX_OF_VISIBLE = "the weights are the softmax of q . k / sqrt(d_k) over each query's visible keys"


# --- running and comparing ------------------------------------------------------------------------

def _keys(row):
    """`keys 0-3`, `key 2`, `keys 0, 2`, `no key`: the True entries of a bool row."""
    found = [int(j) for j in np.flatnonzero(row)]
    if not found:
        return "no key"
    if len(found) == 1:
        return f"key {found[0]}"
    if found == list(range(found[0], found[-1] + 1)):
        return f"keys {found[0]}-{found[-1]}"
    return "keys " + ", ".join(map(str, found))


def _mask_call(n_q, *n_k):
    return call_text("causal_mask", n_q=n_q, **({"n_k": n_k[0]} if n_k else {}))


def _run_mask(kata, ref, n_q, *n_k):
    call = _mask_call(n_q, *n_k)
    return as_array(kata.causal_mask(n_q, *n_k), call), ref.causal_mask(n_q, *n_k), call


def _compare_mask(got, want, call, n_q, n_k, why="queries are the LAST n_q positions: query i sees keys "
                                                     "0 to n_k - n_q + i"):
    if got.shape != want.shape:
        raise Failure(f"{call} returned shape {got.shape}, expected {want.shape}: one row per query, one "
                      "column per key")
    if not np.isin(got, (0, 1)).all():
        raise Failure(f"{call} returned {show(got)}: expected a bool mask, True = may attend")
    if np.array_equal(got.astype(bool), want):
        return
    i = int(np.flatnonzero((got != want).any(axis=-1))[0])
    detail = f"{call}: query {i} may see {_keys(got[i])}, expected {_keys(want[i])}"
    matched = Suspects(MASK_VARIANTS, n_q, n_k).match(got, want, 0, 0)
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True)
    raise Failure(f"{detail}: {why}")


def _learner(function, call, q, k, *args):
    """function(q, k, *args) run by the learner; the shape error of a batched k.T is named, not left a crash."""
    try:
        return function(q, k, *args)
    except LearnerError as error:
        if error.not_implemented or not full_transpose_error(error.message, np.shape(q), np.shape(k)):
            raise
        raise full_transpose_failure(call, error, np.shape(k)) from None


def _run(kata, ref, q, k, v, mask=None, mask_text=None, right_mask=None):
    """The learner's (out, weights), the right ones (from float64, with `right_mask` if the mask given
    is the learner's own), and the call as text."""
    if mask is None or mask_text is None:
        call = call_text("attention", q=np.asarray(q), k=np.asarray(k), v=np.asarray(v),
                         **({} if mask is None else {"mask": np.asarray(mask)}))
    else:
        # whose mask it was: the learner's own causal_mask, chained, or the right one the checker made
        whose = "your" if right_mask is not None else "the right"
        call = call_text("attention", q=np.asarray(q), k=np.asarray(k), v=np.asarray(v))[:-1] + \
            f", mask={whose} {mask_text})"
    got = _learner(kata.attention, call, q, k, v, *(() if mask is None else (mask,)))
    out, weights = as_pair(got, call)
    q64, k64, v64 = (np.asarray(x, np.float64) for x in (q, k, v))
    want = ref.attention(q64, k64, v64, mask if right_mask is None else right_mask)
    return (out, weights), want, call


def _query(index):
    *lead, i = index
    return f"query {i}" + (f" at {list(lead)}" if lead else "")


def _explain(got, want, allowed, rtol, atol):
    """What the first wrong row of weights does, in words, and whether that is about which keys it saw."""
    index = tuple(int(i) for i in np.argwhere(~close(got, want, rtol, atol).all(axis=-1))[0])
    g, w, a, who = got[index], want[index], allowed[index], _query(index)
    if not a.any():
        return f"{who} has no visible key and got weights {show(g)}, expected zeros", True
    if np.isnan(g).any():
        return f"{who} got weights {show(g)}, expected {show(w)}", True
    leaked = np.flatnonzero(~a & (g != 0))
    if leaked.size:
        j = leaked[np.argmax(np.abs(g[leaked]))]
        return f"{who} saw blocked key {j} (weight {g[j]:.2g})", True
    if not g.any():
        return (f"{who} got weight 0 for every key, expected {_keys(w != 0)} to share the weight (the mask lets it "
                f"see {_keys(a)}: the row's weights were lost, not masked)"), False
    if not np.array_equal(g != 0, w != 0):
        lost = a & (g == 0) & (w != 0)
        if lost.any():
            return f"{who} gave weight 0 to {_keys(lost)}, which it may see (expected {_keys(w != 0)})", False
        return f"{who} gave weight to {_keys(g != 0)}, expected {_keys(w != 0)}", True
    if not np.isclose(g.sum(), 1, rtol=rtol, atol=atol * g.size):
        return f"the weights of {who} sum to {numbers_apart(g.sum(), 1, 3)[0]}, expected 1", False
    j = int(np.flatnonzero(~close(g, w, rtol, atol))[0])
    return f"{who} gave key {j} weight %s, expected %s" % numbers_apart(g[j], w[j], 3), False


def _picture(got, want, allowed, rtol=0.0, atol=0.0):
    """The table (one example, one head) holding the first wrong row, to draw beside the right one."""
    wrong = np.argwhere(~close(got, want, rtol, atol).all(axis=-1))
    index = tuple(int(i) for i in wrong[0][:-1]) if len(wrong) else (0,) * (got.ndim - 2)
    return WeightGrid(got[index], want[index], np.broadcast_to(allowed, got.shape)[index],
                      "weights" + (f" {list(index)}" if index else ""))


def _ignores_mask(weights, q, k, rtol, atol):
    """Whether the weights are the plain softmax of the scores: the mask was never used (a bug outside the
    catalogue, which on some inputs looks like a mask added to the scores)."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    plain = np.exp(scores - scores.max(axis=-1, keepdims=True))
    plain /= plain.sum(axis=-1, keepdims=True)
    return plain.shape == weights.shape and close(weights, plain, rtol, atol).all()


def _uniform_output_rows(out, want_out, allowed, v, call, rtol, atol):
    """full-row-uniform seen in `out` alone: the weights were cleaned up, but a query with no visible key
    still averaged every value."""
    ok = close(out, want_out, rtol, atol).all(axis=-1)  # (..., n_q)
    empty = ~allowed.any(axis=-1)
    average = np.broadcast_to(v.mean(axis=-2, keepdims=True), out.shape)  # what a finite fill mixes in
    wrong = empty & ~ok
    if wrong.any() and ok[~empty].all() and close(out[wrong], average[wrong], rtol, atol).all():
        raise Failure(f"{call}: {_query(tuple(int(i) for i in np.argwhere(wrong)[0]))} has no visible key and "
                      "its output is the plain average of every value, expected zeros: a finite fill leaves its "
                      "row a softmax; give it zero weights and a zero output", "full-row-uniform", exact=True)


def _empty_rows_bug(got, want, allowed, rtol, atol):
    """full-row-nan or full-row-uniform when only the queries with no visible key are wrong."""
    ok = close(got, want, rtol, atol).all(axis=-1)
    empty = ~allowed.any(axis=-1)
    if ok[~empty].all() and not ok[empty].all():
        rows = got[empty & ~ok]
        if np.isnan(rows).all():
            return "full-row-nan", "a query with no visible key got NaN: -inf - (-inf) is NaN; give it zeros"
        if np.isfinite(rows).all() and np.allclose(rows.sum(axis=-1), 1, rtol=rtol, atol=atol * rows.shape[-1]):
            return "full-row-uniform", "a query with no visible key still mixed the values: a finite fill " \
                                       "leaves its row a softmax; give it zero weights and a zero output"
    return None


def _truncated_scores(weights, want, inputs, allowed, rtol, atol):
    """("integer-truncation", why) when integer q and k gave the weights of scores rounded to whole numbers
    (an integer array written into, a cast back to the inputs' dtype, a floor division), else None."""
    q, k = inputs[0], inputs[1]
    if q.dtype.kind not in "iub" or k.dtype.kind not in "iub":
        return None
    product = q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)
    root = np.sqrt(q.shape[-1])

    def softmax_of(scores):
        scores = np.where(allowed, scores, -np.inf)
        peak = scores.max(axis=-1, keepdims=True)
        e = np.exp(scores - np.where(np.isfinite(peak), peak, 0))
        total = e.sum(axis=-1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

    # a softmax forgets a constant shift: rounded scores can equal unscaled ones, or ones divided by a rounded
    # sqrt(d_k), on some inputs (trunc([3, 1, 1] / sqrt(2)) = [2, 0, 0]); there this input names nothing
    others = [softmax_of(product / divisor) for divisor in {1.0, float(np.floor(root)), float(np.round(root))}]
    if any(close(weights, other, rtol, atol).all() for other in others):
        return None
    for rounding in (np.trunc, np.floor):
        candidate = softmax_of(rounding(product / root))
        if close(weights, candidate, rtol, atol).all() and not close(candidate, want, rtol, atol).all():
            return ("integer-truncation", "the scores of the integer inputs were rounded to whole numbers (an "
                    "integer array, a cast back to the inputs' dtype, or //) before the softmax")
    return None


def _compare(result, want, call, q, k, v, mask, why="", cause=None):
    """Fail unless (out, weights) match; name a bug by the weights' output or by what they do.

    `cause`, a (bug id, reason) found beforehand, names wrong weights in place of that diagnosis.
    """
    (out, weights), (want_out, want_weights) = result, want
    inputs = [np.asarray(x) for x in (q, k, v)]
    rtol, atol = tolerance(weights, out, *inputs)
    for name, got, right in (("weights", weights, want_weights), ("out", out, want_out)):
        if got.shape != right.shape:
            raise Failure(f"{call} returned {name} of shape {got.shape}, expected {right.shape}")
        expect_precision(got, inputs, f"{call} ({name})")
    allowed = np.ones(want_weights.shape, bool) if mask is None else \
        np.broadcast_to(np.asarray(mask, bool), want_weights.shape)
    if not close(weights, want_weights, rtol, atol).all():
        text, about_keys = _explain(weights, want_weights, allowed, rtol, atol)
        detail = f"{call}: {text}"
        q64, k64, v64 = (np.asarray(x, np.float64) for x in (q, k, v))
        if mask is not None and cause is None and _ignores_mask(weights, q64, k64, rtol, atol):
            raise Failure(f"{detail}: the weights are those of no mask at all: mask was not applied",
                          picture=_picture(weights, want_weights, allowed, rtol, atol))
        found = cause or Suspects(WEIGHT_VARIANTS, q64, k64, v64, allowed).match(weights, want_weights, rtol, atol)
        truncated = None if cause else _truncated_scores(weights, want_weights, inputs, allowed, rtol, atol)
        if truncated and found and found[0] != truncated[0]:
            matched = None  # two explanations fit this input: it names neither
        else:
            matched = truncated or found or _empty_rows_bug(weights, want_weights, allowed, rtol, atol)
        extra = {"picture": _picture(weights, want_weights, allowed, rtol, atol),
                 "nonfinite": not np.isfinite(weights).all()}
        if matched:
            raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True,
                          confirm=scale_confirmation(matched[0], _scale_matched), **extra)
        raise Failure(f"{detail}: {why if about_keys and why else SOFTMAX_OF_VISIBLE}", **extra)
    # out sums weights times values: its rounding scales with the values, not with out itself
    atol = max(atol, rtol * float(np.abs(np.asarray(v, np.float64)).max(initial=0)))
    if not close(out, want_out, rtol, atol).all():
        _uniform_output_rows(out, want_out, allowed, np.asarray(v, np.float64), call, rtol, atol)
        raise Failure(f"{call} returned out with wrong values {first_difference(out, want_out, rtol, atol)}: "
                      "out must be weights @ v (zeros for a query with no visible key)")


def _scale_matched(kata, sizes):
    """The id the learner's weights match with no mask on an input of `sizes` (engine/telling.py), or None."""
    n_q, n_k, d, _ = sizes
    rng = np.random.default_rng(2017)
    q, k, v = rng.normal(size=(2, n_q, d)), rng.normal(size=(2, n_k, d)), rng.normal(size=(2, n_k, 4))
    _, weights = as_pair(kata.attention(q, k, v), "")
    every = np.ones((n_q, n_k), bool)
    want = pieces.fill_guarded(pieces.scores(q, k), every, pieces.softmax)
    if weights.shape != want.shape:
        return None
    matched = Suspects(WEIGHT_VARIANTS, q, k, v, every).match(weights, want, *tolerance(weights, q, k, v))
    return matched and matched[0]


# --- shape first ---------------------------------------------------------------------------------

def test_mask_shape_and_dtype(kata, ref):
    for args in ((3, 5), (4,)):
        got, want, call = _run_mask(kata, ref, *args)
        if got.shape != want.shape:
            raise Failure(f"{call} returned shape {got.shape}, expected {want.shape}" +
                          (": n_k=None means n_k = n_q" if len(args) == 1 else ": one row per query"))
        if got.dtype != bool:
            raise Failure(f"{call} returned dtype {got.dtype}, expected bool (True = may attend)")


def test_shape(kata, ref, rng):
    q, k, v = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 6))
    (out, weights), (want_out, want_weights), call = _run(kata, ref, q, k, v)
    for name, got, right in (("weights", weights, want_weights), ("out", out, want_out)):
        if got.shape != right.shape:
            raise Failure(f"{call} returned {name} of shape {got.shape}, expected {right.shape}: "
                          "out is (..., n_q, d_v), weights (..., n_q, n_k)")


def test_values_without_mask(kata, ref, rng):
    q, k, v = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5)), rng.normal(size=(2, 3, 6, 3))
    result, want, call = _run(kata, ref, q, k, v)
    _compare(result, want, call, q, k, v, None, why="mask=None: every query sees every key")


def test_worked_example(kata, ref):
    q = [[2, 1], [0, 1], [1, 1]]  # "order 4471 shipped", as nested lists of integers
    k = [[2, 1], [0, 1], [1, 0]]
    v = [[3, 0], [0, 4], [1, 1]]
    result, want, call = _run(kata, ref, q, k, v, ref.causal_mask(3), "causal_mask(3)")
    _compare(result, want, call, q, k, v, ref.causal_mask(3))
    x = [[2, 0], [0, 2], [1, 1]]  # A, B, C over the keys A, B: query A has nothing to see
    result, want, call = _run(kata, ref, x, x[:2], x[:2], ref.causal_mask(3, 2), "causal_mask(3, 2)")
    _compare(result, want, call, x, x[:2], x[:2], ref.causal_mask(3, 2))


# --- the mask: one bug class a test ---------------------------------------------------------------

@bug("mask-blocks-diagonal")
def test_mask_sees_itself(kata, ref):
    got, want, call = _run_mask(kata, ref, 4)
    _compare_mask(got, want, call, 4, None, why="query i sees keys 0 to i, itself included")


@bug("mask-flipped")
def test_mask_hides_the_future(kata, ref):
    got, want, call = _run_mask(kata, ref, 5, 5)
    _compare_mask(got, want, call, 5, 5, why="no query sees a key after its own position")


@bug("mask-top-left")
@weight(2)
def test_mask_bottom_right(kata, ref):
    for n_q, n_k in ((2, 5), (1, 4)):
        got, want, call = _run_mask(kata, ref, n_q, n_k)
        _compare_mask(got, want, call, n_q, n_k)


def test_mask_more_queries_than_keys(kata, ref):
    got, want, call = _run_mask(kata, ref, 5, 2)
    _compare_mask(got, want, call, 5, 2, why="with n_q > n_k the first n_q - n_k queries see no key")


def test_causal_attention(kata, ref, rng):
    q, k, v = rng.normal(size=(2, 2, 2, 3)), rng.normal(size=(2, 2, 5, 3)), rng.normal(size=(2, 2, 5, 4))
    right = ref.causal_mask(2, 5)
    mask = as_array(kata.causal_mask(2, 5), "causal_mask(2, 5)")  # the learner's own, chained
    result, want, call = _run(kata, ref, q, k, v, mask, "causal_mask(2, 5)", right_mask=right)
    cause = None
    if mask.shape != right.shape or not np.array_equal(mask, right):
        cause = Suspects(MASK_VARIANTS, 2, 5).match(mask, right, 0, 0)  # the weights are wrong because the mask is
    _compare(result, want, call, q, k, v, right, why="queries are the LAST n_q positions", cause=cause)


# --- attention: one bug class a test --------------------------------------------------------------

@bug("mask-after-softmax")
def test_rows_sum_to_one(kata, ref, rng):
    q, k, v = rng.normal(size=(2, 2, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 3))
    mask = ref.causal_mask(2, 5)
    result, want, call = _run(kata, ref, q, k, v, mask, "causal_mask(2, 5)")
    _compare(result, want, call, q, k, v, mask)


@bug("mask-arithmetic")
def test_blocked_keys_get_zero(kata, ref, rng):
    # n_q=3, n_k=4, d_k=5, d_v=2: no two sizes equal, so a scale by the wrong one is told apart
    q, k, v = rng.normal(size=(2, 2, 3, 5)), rng.normal(size=(2, 2, 4, 5)), rng.normal(size=(2, 2, 4, 2))
    mask = ref.causal_mask(3, 4)
    result, want, call = _run(kata, ref, q, k, v, mask, "causal_mask(3, 4)")
    _compare(result, want, call, q, k, v, mask, why="a blocked key gets weight exactly 0")
    leaked = result[1][np.broadcast_to(~mask, result[1].shape)]
    if (leaked != 0).any():
        raise Failure(f"{call}: a blocked key got weight {np.abs(leaked).max():.2g}, expected exactly 0: "
                      "the fill is finite and too shallow: fill with -inf (and give a query with no "
                      "visible key zeros)", "fill-too-shallow", exact=True,
                      picture=_picture(result[1], want[1], np.broadcast_to(mask, want[1].shape)))


@bug("mask-inverted")
def test_true_means_may_attend(kata, ref, rng):
    q, k, v = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 2))
    mask = np.array([[1, 0, 1, 0, 0], [0, 1, 1, 0, 1], [1, 1, 0, 1, 1], [0, 0, 0, 1, 0]], bool)  # not causal
    result, want, call = _run(kata, ref, q, k, v, mask)
    _compare(result, want, call, q, k, v, mask, why="True = may attend, False = blocked")


@bug("softmax-wrong-axis")
def test_softmax_over_keys(kata, ref, rng):
    q, k, v = rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 5, 4)), rng.normal(size=(3, 5, 3))  # d_v != n_q
    result, want, call = _run(kata, ref, q, k, v)
    _compare(result, want, call, q, k, v, None)


@bug("full-row-nan")
def test_no_visible_key_gives_zeros(kata, ref, rng):
    q, k, v = rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 2, 4)), rng.normal(size=(2, 2, 3))
    mask = ref.causal_mask(5, 2)  # queries 0-2 come before every key
    result, want, call = _run(kata, ref, q, k, v, mask, "causal_mask(5, 2)")
    _compare(result, want, call, q, k, v, mask, why="a query with no visible key gets zero weights and output")


@bug("full-row-uniform")
def test_padding_mask(kata, ref, rng):
    q, k, v = rng.normal(size=(2, 2, 4, 3)), rng.normal(size=(2, 2, 4, 3)), rng.normal(size=(2, 2, 4, 5))
    keep = np.array([[1, 1, 1, 1], [0, 0, 1, 1]], bool)[:, None, None, :]  # batch 1: keys 0-1 are padding
    mask = ref.causal_mask(4) & keep  # (2, 1, 4, 4): queries 0-1 of batch 1 see nothing
    result, want, call = _run(kata, ref, q, k, v, mask, "causal_mask(4) & padding (2, 1, 1, 4)")
    _compare(result, want, call, q, k, v, mask, why="a query with no visible key gets zero weights and output")


def _queries_for(scores, k):
    """Queries whose scaled scores against k are exactly `scores` (k has d_k >= n_k)."""
    return np.sqrt(k.shape[-1]) * scores @ np.linalg.pinv(np.swapaxes(k, -1, -2))  # (..., n_q, d_k)


def _right(kata, ref, scores, k, v, mask):
    """Does the learner get attention right for queries whose scaled scores against k are `scores`?"""
    return _attempt(kata, ref, scores, k, v, mask)[0]


def _attempt(kata, ref, scores, k, v, mask):
    """(right?, the learner's weights) for queries whose scaled scores against k are `scores`."""
    q = _queries_for(scores, k)
    got, right, _ = _run(kata, ref, q, k, v, mask, "")
    return all(g.shape == r.shape and close(g, r, *tolerance(g, q, k, v)).all() for g, r in zip(got, right)), got[1]


def _softmax_without_shift(kata, ref, noise, k, v, call, text):
    """no-max-shift when the learner is wrong with every key visible and real scores near -1e5 (exp underflows
    to 0 for every key) and near +1e3 (exp overflows); a softmax wrong only below is left to the other tests."""
    every = np.ones(noise.shape[-2:], bool)
    low_right, low = _attempt(kata, ref, noise - 1e5, k, v, every)
    if low_right:
        return
    high_right, high = _attempt(kata, ref, noise + 1e3, k, v, every)
    # what no shift does, on both sides: exp overflows to inf near +1e3 (NaN or inf comes back), and every exp
    # underflows to 0 near -1e5 (NaN or zeros); a softmax wrong there in another way (scores clipped, a
    # temperature) is a rival, named nothing
    overflowed = not np.isfinite(high).all()
    underflowed = not np.isfinite(low).all() or not np.asarray(low).any(axis=-1).all()
    if not high_right and overflowed and underflowed:
        raise Failure(f"{call}: {text}; with no key blocked it is wrong too when the real scores are near -1e5 or "
                      "near +1e3, and right when they are ordinary: exp(score) underflows to 0 (or overflows to "
                      "inf) without the max shift; subtract each row's maximum score before np.exp",
                      "no-max-shift", exact=True)
    raise Failure(f"{call}: {text}; with no key blocked it is wrong too when every real score is near -1e5: the "
                  "softmax loses slices of only large negative scores; subtract each row's own maximum")


@bug("fill-too-shallow")
def test_mask_wins_over_large_scores(kata, ref, rng):
    mask = ref.causal_mask(3, 5)
    k, v = rng.normal(size=(2, 2, 5, 6)), rng.normal(size=(2, 2, 5, 4))
    noise = rng.normal(size=(2, 2, 3, 5)) * 2
    q = _queries_for(np.where(mask, -1e5, 1e5) + noise, k)  # visible keys score -1e5, blocked ones +1e5
    result, want, call = _run(kata, ref, q, k, v, mask, "causal_mask(3, 5)")
    call += " with real scores of -1e5 for visible keys and +1e5 for blocked ones"
    weights = result[1]
    if weights.shape == want[1].shape and np.isfinite(weights).all() and \
            not close(weights, want[1], *tolerance(weights, q, k, v)).all() and _right(kata, ref, noise, k, v, mask):
        # With ordinary scores the mask works. A finite fill shows either as weight on blocked keys, or,
        # when blocked weights are zeroed afterwards, as rows that lose to keys scoring just below the
        # visible ones (where masking after a renormalised softmax still works). With no key blocked a finite
        # fill is never used: code that fails there too has a softmax that cannot take the scores' size.
        allowed = np.broadcast_to(mask, weights.shape)
        text, _ = _explain(weights, want[1], allowed, *tolerance(weights, q, k, v))
        _softmax_without_shift(kata, ref, noise, k, v, call, text)
        leaked = (weights[..., ~mask] != 0).any()
        if leaked or not _right(kata, ref, np.where(mask, -1e5, -1e5 - 50) + noise, k, v, mask):
            raise Failure(f"{call}: {text}, although with ordinary scores the mask works: the fill is finite, "
                          "and real scores go below it", "fill-too-shallow", exact=True,
                          picture=_picture(weights, want[1], allowed, *tolerance(weights, q, k, v)))
    _compare(result, want, call, q, k, v, mask, why="the mask wins whatever the scores are")


def _name_the_shift(kata, ref, weights, want, q, k, v, noise, call):
    """Rows near +800, 0 and -800: name the shift by what each row does alone. Right at +800 (so some shift is
    there) and wrong lower down: wrong rows that are right when run alone lost to the top row, a whole-table
    maximum (global-max); a -800 row wrong alone and right once raised to near 0 has a maximum floored at 0."""
    if weights.shape != want.shape:
        return
    ok = close(weights, want, *tolerance(weights, q, k, v)).all(axis=(0, -1))  # (3,): one per query row
    if not ok[0] or ok.all():
        return
    every = np.ones((1, 5), bool)
    wrong = [int(i) for i in np.flatnonzero(~ok)]
    alone = [_right(kata, ref, noise[:, i:i + 1] + (0.0, 0.0, -800.0)[i], k, v, every) for i in wrong]
    text = f"{call} with real scores near +800, 0 and -800 in queries 0, 1 and 2: queries {', '.join(map(str, wrong))} wrong"
    if all(alone):
        raise Failure(f"{text}, and right when each is given alone: each row was shifted by the maximum of the whole "
                      "table, so rows far below it underflowed; subtract each row's own maximum", "global-max",
                      exact=True)
    if wrong == [2] and not alone[0] and _right(kata, ref, noise[:, 2:3] + 5.0, k, v, every):
        raise Failure(f"{text}, also alone, and right once its scores are raised to near 0: a row of only large "
                      "negative scores was not shifted down to 0 (a maximum floored at 0)", "max-floor-zero", exact=True)


@bug("global-max")
def test_rows_far_apart(kata, ref, rng):
    # real scores near +800, 0 and -800 in three rows: exp overflows without each row's own shift, a row far
    # below the top one underflows when the whole table's maximum is subtracted, an all-negative row when
    # the maximum is floored at 0
    k, v = rng.normal(size=(2, 5, 6)), rng.normal(size=(2, 5, 4))  # n_q=3, n_k=5, d_k=6, d_v=4
    levels = np.array([[800.0], [0.0], [-800.0]])
    noise = rng.normal(size=(2, 3, 5))
    q = _queries_for(levels + noise, k)
    result, want, call = _run(kata, ref, q, k, v)
    _name_the_shift(kata, ref, result[1], want[1], q, k, v, noise, call)
    _compare(result, want, call + " with real scores near +800, 0 and -800 in queries 0, 1 and 2", q, k, v, None,
             why="the weights of each query depend on its own scores only, however large")


@bug("integer-truncation")
def test_integer_inputs(kata, ref, rng):
    # d_k = 3: no score is a whole number, and truncating them changes the weights beyond any rounding
    q, k, v = rng.integers(-3, 4, size=(2, 3, 3)), rng.integers(-3, 4, size=(2, 5, 3)), rng.integers(-3, 4, size=(2, 5, 2))
    result, want, call = _run(kata, ref, q, k, v, ref.causal_mask(3, 5), "causal_mask(3, 5)")
    _compare(result, want, call, q, k, v, ref.causal_mask(3, 5), why="integer inputs give floating-point scores")


@bug("fill-overflows-fp16")
def test_float16(kata, ref, rng):
    q, k, v = (rng.normal(size=(2, n, 3)).astype(np.float16) for n in (4, 5, 5))
    keep = np.array([[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]], bool)[:, None, :]  # batch 1: keys 0-1 are padding
    mask = ref.causal_mask(4, 5) & keep  # (2, 4, 5): query 0 of batch 1 sees nothing
    text = "causal_mask(4, 5) & padding (2, 1, 5)"
    try:
        result, want, call = _run(kata, ref, q, k, v, mask, text)
    except LearnerError as error:  # PyTorch refuses the fill NumPy rounds to -inf: the same mistake, said louder
        if not torch_fill_overflows(error.message):
            raise
        control, _, _ = _run(kata, ref, *(x.astype(np.float32) for x in (q, k, v)), mask, text)
        if any(np.isnan(x).any() for x in control):
            raise
        raise Failure(f"{error.call} raised {error}, while the same call in float32 runs: a fill like -1e9 cannot "
                      f"be held in float16 (whose largest number is {np.finfo(np.float16).max:.0f}: a rounding to -inf "
                      "would give NaN rows); use -inf with a guard, or compute in float32", "fill-overflows-fp16",
                      exact=True) from None
    nan_rows = [np.isnan(x).any(axis=-1) for x in result]  # (..., n_q) each
    if all(x.shape == w.shape for x, w in zip(result, want)) and (nan_rows[0] | nan_rows[1]).any():
        control, _, _ = _run(kata, ref, *(x.astype(np.float32) for x in (q, k, v)), mask, text)
        if not any(np.isnan(x).any() for x in control):  # NaN in float16 only: an overflow
            row = _query(tuple(int(i) for i in np.argwhere(nan_rows[0] | nan_rows[1])[0]))
            raise Failure(f"{call}: {row} got NaN, while the same call in float32 gives none: a fill like -1e9 "
                          f"is -inf in float16 (whose largest number is {np.finfo(np.float16).max:.0f}); use -inf "
                          "with a guard, or compute "
                          "in float32", "fill-overflows-fp16", exact=True, nonfinite=True,
                          picture=_picture(result[1], want[1], mask, *tolerance(result[1])))
    _compare(result, want, call, q, k, v, mask)


def test_float32(kata, ref, rng):
    q, k, v = (rng.normal(size=(2, n, 4)).astype(np.float32) for n in (3, 5, 5))
    result, want, call = _run(kata, ref, q, k, v, ref.causal_mask(3, 5), "causal_mask(3, 5)")
    for x in result:
        expect_float(x, call)
    _compare(result, want, call, q, k, v, ref.causal_mask(3, 5))


@bug("mutates-input")
def test_inputs_unchanged(kata, ref, rng):
    # float64, float32 and float16 (a no-copy np.asarray keeps the caller's array for some dtypes only),
    # and masks with and without queries that see nothing (some code edits the mask just for those)
    cases = (((2, 3, 4), (2, 5, 4), (2, 5, 3), np.float64, ref.causal_mask(3, 5), "causal_mask(3, 5)"),
             ((2, 5, 4), (2, 2, 4), (2, 2, 3), np.float32, ref.causal_mask(5, 2), "causal_mask(5, 2)"),
             ((2, 4, 3), (2, 4, 3), (2, 4, 2), np.float16, ref.causal_mask(4) & np.array([[0, 1, 1, 1]], bool),
              "causal_mask(4) & padding"))
    for q_shape, k_shape, v_shape, dtype, mask, mask_text in cases:
        q, k, v = (rng.normal(size=shape).astype(dtype) for shape in (q_shape, k_shape, v_shape))
        call = call_text("attention", q=q, k=k, v=v)[:-1] + f", {mask_text})"
        _, after = _learner(kata.attention.keeping_args, call, q.copy(), k.copy(), v.copy(), mask.copy())
        expect_unchanged(call, {"q": q, "k": k, "v": v, "mask": mask}, after, "mutates-input")


def test_results_stay_unchanged(kata, ref, rng):
    # a result must not change because of a later call: keep the first, read it again after a second
    expect_kept(kata.causal_mask, (3, 5), (4, 4), _mask_call(3, 5), "causal_mask(4, 4)")
    shapes = ((2, 3, 4), (2, 5, 4), (2, 5, 3))
    first, second = ([rng.normal(size=shape) for shape in shapes] for _ in range(2))
    mask = ref.causal_mask(3, 5)
    call = call_text("attention", q=first[0], k=first[1], v=first[2])[:-1] + ", causal_mask(3, 5))"
    expect_kept(kata.attention, (*first, mask), (*second, mask), call, "a second call on other inputs")

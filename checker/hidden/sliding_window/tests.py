"""Hidden tests for kata 13: sliding_window_mask, RollingKVCache and window_attention.

The ground truth is attention over the whole sequence under the band, computed here in the checker: for every
chunking (one prefill, several chunks, single steps after a prefill) of sequences several times longer than
the window, the learner's outputs joined must equal it. Most attention checks hand the learner one-hot values,
so each output row is that query's weights over every position: the band the code allowed is read off its
answer and drawn beside the right one. Memory and per-step cost are the kernel's figures (cost.py).
"""

import numpy as np

from checker.engine.testkit import Failure, Suspects, bug, caps, close, expect_float, expect_unchanged, \
    first_difference, measured, one_array, show, tolerance, weight
from checker.hidden.sliding_window import cost, explain
from checker.hidden.sliding_window.cache_checks import check_first_append_alone, check_kept, check_kept_stays, new_cache, positions_of
from checker.hidden.sliding_window.calls import check_plan, compare, feed, plan_of, run_call
from checker.hidden.sliding_window.shape_variants import KEPT_VARIANTS, MASK_RIVALS, MASK_VARIANTS  # noqa: F401
from checker.hidden.sliding_window.variants import Plan, band, expected
from checker.sandbox import LearnerError

# KEPT_VARIANTS (used by cache_checks.py) is named here too, so `kata dev check` sees every variant of the kata.
API = {"sliding_window_mask": ("n_q", "n_k", "window"), "RollingKVCache": ("window",),
       "window_attention": ("q", "k", "v", "cache", "window")}


# --- sliding_window_mask ------------------------------------------------------------------------------------

def _check_mask(kata, n_q, n_k, window):
    call = f"sliding_window_mask({n_q}, {n_k}, {window})"
    got = one_array(kata.sliding_window_mask(n_q, n_k, window), call)
    want = band(n_q, n_k, window)
    if got.shape != want.shape:
        raise Failure(f"{call} returned shape {got.shape}, expected {want.shape}: one row per query, one column "
                      "per key")
    if not np.isin(got, (0, 1)).all():
        raise Failure(f"{call} returned {show(got)}: expected a bool mask, True = may attend")
    got = got.astype(bool)
    if np.array_equal(got, want):
        return
    i = int(np.flatnonzero((got != want).any(axis=-1))[0])
    position = n_k - n_q + i
    detail = (f"{call}: query {i} (position {position}) may see {explain.keys_text(np.flatnonzero(got[i]))}, "
              f"expected {explain.keys_text(np.flatnonzero(want[i]))}")
    matched = Suspects(MASK_VARIANTS, n_q, n_k, window, rivals=MASK_RIVALS).match(got, want, 0, 0)
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True)
    raise Failure(f"{detail}: query i sits at position n_k - n_q + i and sees key j iff 0 <= position - j < window")


@bug("window-no-causal")
def test_mask_square(kata):
    _check_mask(kata, 6, 6, 3)


@bug("window-top-left")
def test_mask_queries_are_last(kata):
    for n_q, n_k, window in ((3, 8, 4), (1, 6, 2)):
        _check_mask(kata, n_q, n_k, window)


@bug("window-off-by-one")
def test_mask_band_width(kata):
    for n_q, n_k, window in ((5, 9, 3), (4, 4, 1)):
        _check_mask(kata, n_q, n_k, window)


@bug("mask-inverted")
def test_mask_true_means_visible(kata):
    _check_mask(kata, 4, 7, 2)


def test_mask_window_covers_everything(kata):
    for n_q, n_k, window in ((3, 5, 5), (4, 4, 9)):  # kata 03's causal mask
        _check_mask(kata, n_q, n_k, window)


def test_mask_refuses_more_queries_than_keys(kata):
    call = "sliding_window_mask(5, 3, 2)"
    why = "the queries are the last n_q of the n_k positions, so n_q <= n_k"
    try:
        got = kata.sliding_window_mask(5, 3, 2)
    except LearnerError as error:
        if error.not_implemented:
            raise
        if error.type == "ValueError":
            return
        raise Failure(f"{call} raised {error}, expected a ValueError: {why}") from None
    raise Failure(f"{call} returned {show(np.asarray(got))}, expected a ValueError: {why}")


# --- RollingKVCache --------------------------------------------------------------------------------------------

@bug("ring-order-wrong")
def test_kept_oldest_first(kata, rng):
    check_kept(kata, rng, 2, 3, 2, 4, (3, 2, 1, 5, 1, 1, 3))  # many wrap-arounds, the write slot moving


@bug("cache-overwritten")
def test_kept_every_chunk(kata, rng):
    check_kept(kata, rng, 2, 2, 3, 5, (2, 1, 1))


@bug("cache-wrong-axis")
def test_kept_along_positions(kata, rng):
    check_kept(kata, rng, 2, 3, 4, 6, (2, 2, 2))  # equal chunks: a cache along the wrong axis still runs


def test_kept_chunk_longer_than_window(kata, rng):
    check_kept(kata, rng, 1, 2, 3, 3, (2, 7, 1, 4))


def test_append_refuses_other_shapes(kata, rng):
    # b, h or d of 1 broadcasts into the ring without a word from NumPy: only the cache's own check refuses it
    for shape in ((2, 3, 1, 5), (1, 3, 1, 4), (2, 1, 1, 4), (2, 3, 1, 1)):
        cache = new_cache(kata, 4)
        cache.append(rng.normal(size=(2, 3, 2, 4)), rng.normal(size=(2, 3, 2, 4)))
        call = f"cache.append(k {shape}, v {shape}) after an append of (2, 3, 2, 4)"
        try:
            cache.append(rng.normal(size=shape), rng.normal(size=shape))
        except LearnerError as error:
            if error.type == "ValueError":
                continue
            raise Failure(f"{call} raised {error}, expected a ValueError of your own: b, h and d are fixed by the "
                          "first append") from None
        raise Failure(f"{call} returned, expected a ValueError: b, h and d are fixed by the first append")


def test_kept_is_new_arrays(kata, rng):
    check_kept_stays(kata, rng, 2, 2, 3, 4, (2, 1, 3, 2, 5))


@bug("shared-cache-state")
def test_two_caches_side_by_side(kata, rng):
    check_first_append_alone(kata, rng)
    plans = [plan_of(rng, 2, 2, 12, 3, 4, chunks) for chunks in ((5, 1, 2, 1, 3), (2, 4, 1, 1, 4))]
    first = kata.RollingKVCache(4)
    before = positions_of(first, "RollingKVCache(4)")
    try:
        alone = feed(kata, plans[0], first)[0]
    except (LearnerError, Failure) as error:  # judged after looking for shared storage, which can cause it
        alone = error
    fresh = positions_of(kata.RollingKVCache(4), "RollingKVCache(4)")
    if fresh != before:
        raise Failure(f"a new RollingKVCache(4) held {before} positions; after another cache was fed 12, a new one "
                      f"held {fresh}: the caches share their storage (a class attribute or a mutable default)",
                      "shared-cache-state", exact=True)
    if isinstance(alone, Exception):
        raise alone
    compare(alone, expected(plans[0]), plans[0])
    caches = [new_cache(kata, 4), new_cache(kata, 4)]
    outputs = [[], []]
    for index in range(len(plans[0].chunks)):  # the calls in turns, one cache then the other
        for which in (0, 1):
            outputs[which].append(run_call(kata, caches[which], plans[which], index)[0])
    got = np.concatenate(outputs[0], axis=2)
    if not close(got, expected(plans[0]), *tolerance(got, plans[0].q)).all():
        where = first_difference(got, expected(plans[0]), *tolerance(got, plans[0].q))
        raise Failure(f"{plans[0].describe()}: right on a cache used alone, wrong ({where}) on a cache used in turns "
                      "with another: the caches share their storage", "shared-cache-state", exact=True)
    compare(np.concatenate(outputs[1], axis=2), expected(plans[1]), plans[1])


# --- window_attention against full attention under the band --------------------------------------------------

@bug("window-no-causal")
def test_one_prefill(kata, rng):
    check_plan(kata, plan_of(rng, 2, 2, 8, 4, 3, (8,)))


@bug("window-top-left")
def test_prefill_then_decode(kata, rng):
    check_plan(kata, plan_of(rng, 2, 2, 8, 4, 3, (4, 1, 1, 1, 1)))


@bug("window-off-by-one")
def test_band_width_in_chunks(kata, rng):
    check_plan(kata, plan_of(rng, 1, 2, 8, 4, 3, (3, 1, 2, 1, 1)))


@bug("evicts-before-attending")
def test_chunk_after_a_full_window(kata, rng):
    # chunks shorter than the window after a full one: their first queries need kept keys that appending drops,
    # and the chunk alone is not what appending first leaves (a call that forgets the cache is another bug)
    check_plan(kata, plan_of(rng, 2, 1, 8, 4, 3, (3, 2, 2, 1)))


@bug("window-ignored-in-cache")
def test_history_longer_than_window(kata, rng):
    # a chunk longer than the window after one: every kept key older than its band, most new ones too
    check_plan(kata, plan_of(rng, 1, 2, 14, 4, 3, (4, 5, 1, 4)))


@bug("attend-before-append")
def test_new_tokens_see_themselves(kata, rng):
    check_plan(kata, plan_of(rng, 2, 1, 8, 4, 3, (1, 2, 1), seeded=4))


@bug("mask-after-softmax")
def test_weights_sum_to_one(kata, rng):
    check_plan(kata, plan_of(rng, 1, 1, 7, 4, 4, (7,)))


@bug("missing-scale")
def test_scale(kata, rng):
    check_plan(kata, plan_of(rng, 1, 2, 6, 16, 2, (3, 1, 2), scale=2.0))


def test_window_one(kata, rng):
    check_plan(kata, plan_of(rng, 2, 2, 6, 4, 1, (3, 1, 2)), why="window 1: each query sees itself only")


def test_window_covers_everything(kata, rng):
    check_plan(kata, plan_of(rng, 1, 2, 8, 4, 9, (5, 1, 2)), why="window >= n: plain causal attention")


def test_many_wrap_arounds(kata, rng):
    # 90 positions through a window of 5, values not one-hot and d_v != d: the answer checked at every call
    plan = plan_of(rng, 2, 3, 90, 4, 5, (7, 1, 1, 12, 3, 1, 40, 1, 2, 6, 1, 15), one_hot=False, d_v=3)
    check_plan(kata, plan, why="the band follows each query however many times the ring wrapped")


@bug("no-max-shift")
def test_large_scores(kata, rng):
    plan = plan_of(rng, 2, 2, 9, 4, 4, (5, 1, 3), one_hot=False, scale=300.0)  # scores near 1e3
    got, _ = feed(kata, plan)
    want = expected(plan)
    if not np.isfinite(got).all():
        ordinary = plan_of(rng, 2, 2, 9, 4, 4, (5, 1, 3), one_hot=False)
        control, _ = feed(kata, ordinary)
        if close(control, expected(ordinary), *tolerance(control, ordinary.q)).all():
            raise Failure(f"{plan.describe()} with scores near 1e3 returned NaN or inf, while the same calls with "
                          "ordinary scores are right: exp(1e3) overflows to inf and inf/inf is NaN; subtract each "
                          "row's maximum score before np.exp", "no-max-shift", exact=True, nonfinite=True)
    compare(got, want, plan)


def test_float32(kata, rng):
    plan = plan_of(rng, 2, 2, 10, 4, 3, (4, 1, 3, 1, 1), one_hot=False)
    plan = Plan(*(x.astype(np.float32) for x in (plan.q, plan.k, plan.v)), plan.window, plan.chunks)
    got, _ = feed(kata, plan)
    expect_float(got, plan.describe())
    compare(got, expected(plan), plan)


@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    for dtype in (np.float64, np.float32):  # a no-copy np.asarray keeps the caller's array for some dtypes only
        plan = plan_of(rng, 2, 2, 6, 4, 3, (4, 2), one_hot=False)
        q, k, v = (x.astype(dtype) for x in (plan.q, plan.k, plan.v))
        cache = new_cache(kata, 3)
        _, after = cache.append.keeping_args(k[:, :, :4].copy(), v[:, :, :4].copy())
        expect_unchanged("cache.append(k (2, 2, 4, 4), v (2, 2, 4, 3))", {"k": k[:, :, :4], "v": v[:, :, :4]},
                         after, "mutates-input", advice="the cache must keep copies, never write into the caller's")
        args = {"q": q[:, :, 4:], "k": k[:, :, 4:], "v": v[:, :, 4:], "cache": cache, "window": 3}
        _, after = kata.window_attention.keeping_args(*(a.copy() if isinstance(a, np.ndarray) else a
                                                        for a in args.values()))
        expect_unchanged(f"window_attention(q, k, v (2, 2, 2, ·) {dtype.__name__}, cache, window=3)", args, after,
                         "mutates-input")


# --- memory and per-step cost: the kernel's figures ------------------------------------------------------------

@measured
@bug("cache-grows-unbounded")
@weight(3)
@caps(60)  # the kata's point: a "rolling" cache that keeps every position is kata 05's cache with a mask
def test_memory_stays_flat(kata, rng):
    cost.memory_stays_flat(kata, rng, positions_of)


@bug("cache-grows-unbounded")
@weight(2)
def test_step_cost_flat_in_history(kata, rng):
    cost.step_cost_flat(kata, rng)

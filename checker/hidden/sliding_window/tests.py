"""Hidden tests for kata 13: sliding_window_mask, RollingKVCache and window_attention.

The ground truth is attention over the whole sequence under the band, computed here in the checker: for every
chunking (one prefill, several chunks, single steps after a prefill) of sequences several times longer than
the window, the learner's outputs joined must equal it. Most attention checks hand the learner one-hot values,
so each output row is that query's weights over every position: the band the code allowed is read off its
answer and drawn beside the right one. Memory and per-step cost are the kernel's figures (cost.py).
"""

import numpy as np

from checker.engine.proxy import LearnerObject
from checker.engine.testkit import Failure, Suspects, as_pair, bug, close, expect_float, expect_precision, \
    expect_unchanged, first_difference, measured, numbers_apart, one_array, show, tolerance, weight
from checker.hidden.sliding_window import cost, explain
from checker.hidden.sliding_window.shape_variants import KEPT_RIVALS, KEPT_VARIANTS, MASK_RIVALS, MASK_VARIANTS, \
    kept_expected
from checker.hidden.sliding_window.variants import ATTENTION_RIVALS, ATTENTION_VARIANTS, Plan, band, expected
from checker.sandbox import LearnerError

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
    try:
        got = kata.sliding_window_mask(5, 3, 2)
    except LearnerError as error:
        if error.not_implemented or error.type == "ValueError":
            if error.not_implemented:
                raise
            return
        raise Failure(f"{call} raised {error}, expected a ValueError: the queries are the last n_q of the n_k "
                      "positions, so n_q <= n_k") from None
    raise Failure(f"{call} returned {show(np.asarray(got))}, expected a ValueError: the queries are the last n_q of "
                  "the n_k positions, so n_q <= n_k")


# --- RollingKVCache --------------------------------------------------------------------------------------------

def _length(cache, what):
    got = LearnerObject.__len__(cache)
    if isinstance(got, np.ndarray) and got.ndim == 0 and got.dtype.kind in "iu":
        got = int(got)
    if not isinstance(got, int) or isinstance(got, bool) or got < 0:
        raise Failure(f"len({what}) returned {show(got)}, expected the number of positions ever appended")
    return got


def _new_cache(kata, window):
    cache = kata.RollingKVCache(window)
    length = _length(cache, f"RollingKVCache({window})")
    if length:
        raise Failure(f"len(RollingKVCache({window})) is {length}, expected 0: a new cache is empty (does it hold "
                      "positions another cache appended?)")
    return cache


def _check_kept(kata, rng, b, h, d, window, chunks):
    """Append chunks; after each, len(cache) counts every position and kept() holds the last window, oldest first."""
    cache = _new_cache(kata, window)
    appended = []
    for index, t in enumerate(chunks):
        k, v = rng.normal(size=(b, h, t, d)), rng.normal(size=(b, h, t, d))
        cache.append(k, v)
        appended.append((k, v))
        total = sum(chunks[:index + 1])
        so_far = " + ".join(str(c) for c in chunks[:index + 1])
        length = _length(cache, "cache")
        if length != total:
            raise Failure(f"RollingKVCache({window}): len(cache) is {length} after appending {so_far} positions, "
                          f"expected {total}: len counts every position ever appended, the dropped ones too")
        call = f"RollingKVCache({window}).kept() after appending {so_far} positions (b={b}, h={h}, d={d})"
        got = np.stack([np.asarray(x, np.float64) for x in as_pair(cache.kept(), call, ("k", "v"))]) \
            if _pair_shapes_agree(cache.kept(), call) else None
        want = np.stack(kept_expected(appended, window))
        if got is not None and got.shape == want.shape and close(got, want, *tolerance(got, want)).all():
            continue
        detail = (f"returned shapes {_shapes(cache.kept(), call)}, expected {want.shape[1:]} each" if got is None or
                  got.shape != want.shape else f"returned wrong values {first_difference(got, want, *tolerance(got, want))}")
        matched = Suspects(KEPT_VARIANTS, appended, window, rivals=KEPT_RIVALS).match(
            got, want, *tolerance(want)) if got is not None else None
        if matched:
            raise Failure(f"{call} {detail}: {matched[1]}", matched[0], exact=True)
        raise Failure(f"{call} {detail}: the last min(len, window) = {want.shape[3]} positions, oldest first, "
                      "(b, h, m, d) each")


def _pair_shapes_agree(got, call):
    k, v = as_pair(got, call, ("k", "v"))
    return np.shape(k) == np.shape(v)


def _shapes(got, call):
    k, v = as_pair(got, call, ("k", "v"))
    return f"{np.shape(k)} and {np.shape(v)}"


@bug("ring-order-wrong")
def test_kept_oldest_first(kata, rng):
    _check_kept(kata, rng, 2, 3, 2, 4, (3, 2, 1, 5, 1, 1, 3))  # many wrap-arounds, the write slot moving


@bug("cache-overwritten")
def test_kept_every_chunk(kata, rng):
    _check_kept(kata, rng, 2, 2, 3, 5, (2, 1, 1))


@bug("cache-wrong-axis")
def test_kept_along_positions(kata, rng):
    _check_kept(kata, rng, 2, 3, 4, 6, (2, 2, 2))  # equal chunks: a cache along the wrong axis still runs


def test_kept_chunk_longer_than_window(kata, rng):
    _check_kept(kata, rng, 1, 2, 3, 3, (2, 7, 1, 4))


def test_append_refuses_other_shapes(kata, rng):
    cache = _new_cache(kata, 4)
    cache.append(rng.normal(size=(2, 3, 2, 4)), rng.normal(size=(2, 3, 2, 4)))
    call = "cache.append(k (2, 3, 1, 5), v (2, 3, 1, 4)) after an append of (2, 3, 2, 4)"
    try:
        cache.append(rng.normal(size=(2, 3, 1, 5)), rng.normal(size=(2, 3, 1, 4)))
    except LearnerError as error:
        if error.type == "ValueError":
            return
        raise Failure(f"{call} raised {error}, expected a ValueError of your own: b, h and d are fixed by the "
                      "first append") from None
    raise Failure(f"{call} returned, expected a ValueError: b, h and d are fixed by the first append")


@bug("shared-cache-state")
def test_two_caches_side_by_side(kata, rng):
    plans = [_plan(rng, 2, 2, 12, 3, 4, chunks) for chunks in ((5, 1, 2, 1, 3), (2, 4, 1, 1, 4))]
    first = kata.RollingKVCache(4)
    before = _length(first, "RollingKVCache(4)")
    try:
        alone = _feed(kata, plans[0], first)[0]
    except (LearnerError, Failure) as error:  # judged after looking for shared storage, which can cause it
        alone = error
    fresh = _length(kata.RollingKVCache(4), "RollingKVCache(4)")
    if fresh != before:
        raise Failure(f"a new RollingKVCache(4) held {before} positions; after another cache was fed 12, a new one "
                      f"held {fresh}: the caches share their storage (a class attribute or a mutable default)",
                      "shared-cache-state", exact=True)
    if isinstance(alone, Exception):
        raise alone
    _compare(alone, expected(plans[0]), plans[0])
    caches = [_new_cache(kata, 4), _new_cache(kata, 4)]
    outputs = [[], []]
    for index in range(len(plans[0].chunks)):  # the calls in turns, one cache then the other
        for which in (0, 1):
            outputs[which].append(_call(kata, caches[which], plans[which], index)[0])
    got = np.concatenate(outputs[0], axis=2)
    if not close(got, expected(plans[0]), *tolerance(got, plans[0].q)).all():
        where = first_difference(got, expected(plans[0]), *tolerance(got, plans[0].q))
        raise Failure(f"{plans[0].describe()}: right on a cache used alone, wrong ({where}) on a cache used in turns "
                      "with another: the caches share their storage", "shared-cache-state", exact=True)
    _compare(np.concatenate(outputs[1], axis=2), expected(plans[1]), plans[1])


# --- window_attention against full attention under the band --------------------------------------------------

def _plan(rng, b, h, n, d, window, chunks, seeded=0, one_hot=True, d_v=3, scale=1.0):
    q, k = scale * rng.normal(size=(b, h, n, d)), rng.normal(size=(b, h, n, d))
    v = explain.one_hot_values(b, h, n) if one_hot else rng.normal(size=(b, h, n, d_v))
    assert seeded + sum(chunks) == n
    return Plan(q, k, v, window, tuple(chunks), seeded)


def _call(kata, cache, plan, index):
    start, t = list(plan.starts())[index]
    part = [x[:, :, start:start + t] for x in (plan.q, plan.k, plan.v)]
    call = (f"window_attention(q {part[0].shape}, k, v {part[2].shape}, cache holding {start} positions, "
            f"window={plan.window})")
    got = one_array(kata.window_attention(*part, cache, plan.window), call)
    want = part[0].shape[:3] + part[2].shape[3:]
    if got.shape != want:
        raise Failure(f"{call} returned shape {got.shape}, expected {want}: (b, h, t, d_v), one row per new query")
    return got, _length(cache, "cache")


def _feed(kata, plan, cache=None):
    cache = _new_cache(kata, plan.window) if cache is None else cache
    if plan.seeded:
        cache.append(plan.k[:, :, :plan.seeded], plan.v[:, :, :plan.seeded])
    outputs, lengths = [], []
    for index in range(len(plan.chunks)):
        got, length = _call(kata, cache, plan, index)
        outputs.append(got)
        lengths.append(length)
    want = [start + t for start, t in plan.starts()]
    if lengths != want:
        raise Failure(f"{plan.describe()}: len(cache) was {lengths} after the calls, expected {want}: len counts "
                      "every position ever appended")
    return np.concatenate(outputs, axis=2), lengths


def _compare(got, want, plan, why="", suspects=True):
    """Fail unless the joined outputs match; name the bug whose output it is, say what the band did."""
    expect_precision(got, (plan.q, plan.k, plan.v), plan.describe())
    rtol, atol = tolerance(got, plan.q, plan.k, plan.v)
    bad = ~close(got, want, rtol, atol)
    if not bad.any():
        return
    example, head, row, channel = (int(i) for i in np.argwhere(bad)[0])
    position = plan.seeded + row
    calls = list(plan.starts())
    index, (start, t) = next((i, c) for i, c in enumerate(calls) if position < c[0] + c[1])
    detail = f"call {index + 1} of {len(calls)} (t={t}, {start} positions before it) returned wrong values"
    picture = None
    if explain.is_one_hot(plan) and np.isfinite(got).all():
        words, picture = explain.describe(got, want, plan, rtol, atol)
        detail += f": {words}"
    else:
        detail += (f": position {position}, example {example}, head {head}, channel {channel}: got %s, expected %s"
                   % numbers_apart(got[example, head, row, channel], want[example, head, row, channel]))
    if picture is not None and plan.end > 8:
        picture = None  # too large to draw: the words say it
    nonfinite = bool((~np.isfinite(got) & np.isfinite(want)).any())
    matched = Suspects(ATTENTION_VARIANTS, plan.as_float64(), rivals=ATTENTION_RIVALS).match(got, want, rtol, atol) \
        if suspects else None
    if matched:
        raise Failure(f"{plan.describe()}: {detail}: {matched[1]}", matched[0], exact=True, nonfinite=nonfinite,
                      picture=picture)
    raise Failure(f"{plan.describe()}: {detail}" + (f"; {why}" if why else ""), nonfinite=nonfinite, picture=picture)


def _check_plan(kata, plan, why="", suspects=True):
    got, _ = _feed(kata, plan)
    _compare(got, expected(plan), plan, why, suspects)


@bug("window-no-causal")
def test_one_prefill(kata, rng):
    _check_plan(kata, _plan(rng, 2, 2, 8, 4, 3, (8,)))


@bug("window-top-left")
def test_prefill_then_decode(kata, rng):
    _check_plan(kata, _plan(rng, 2, 2, 8, 4, 3, (4, 1, 1, 1, 1)))


@bug("window-off-by-one")
def test_band_width_in_chunks(kata, rng):
    _check_plan(kata, _plan(rng, 1, 2, 8, 4, 3, (3, 1, 2, 1, 1)))


@bug("evicts-before-attending")
def test_chunk_after_a_full_window(kata, rng):
    # chunks shorter than the window after a full one: their first queries need kept keys that appending drops,
    # and the chunk alone is not what appending first leaves (a call that forgets the cache is another bug)
    _check_plan(kata, _plan(rng, 2, 1, 8, 4, 3, (3, 2, 2, 1)))


@bug("window-ignored-in-cache")
def test_history_longer_than_window(kata, rng):
    # a chunk longer than the window after one: every kept key older than its band, most new ones too
    _check_plan(kata, _plan(rng, 1, 2, 14, 4, 3, (4, 5, 1, 4)))


@bug("attend-before-append")
def test_new_tokens_see_themselves(kata, rng):
    _check_plan(kata, _plan(rng, 2, 1, 8, 4, 3, (1, 2, 1), seeded=4))


@bug("mask-after-softmax")
def test_weights_sum_to_one(kata, rng):
    _check_plan(kata, _plan(rng, 1, 1, 7, 4, 4, (7,)))


@bug("missing-scale")
def test_scale(kata, rng):
    _check_plan(kata, _plan(rng, 1, 2, 6, 16, 2, (3, 1, 2), scale=2.0))


def test_window_one(kata, rng):
    _check_plan(kata, _plan(rng, 2, 2, 6, 4, 1, (3, 1, 2)), why="window 1: each query sees itself only")


def test_window_covers_everything(kata, rng):
    _check_plan(kata, _plan(rng, 1, 2, 8, 4, 9, (5, 1, 2)), why="window >= n: plain causal attention")


def test_many_wrap_arounds(kata, rng):
    # 90 positions through a window of 5, values not one-hot and d_v != d: the answer checked at every call
    plan = _plan(rng, 2, 3, 90, 4, 5, (7, 1, 1, 12, 3, 1, 40, 1, 2, 6, 1, 15), one_hot=False, d_v=3)
    _check_plan(kata, plan, why="the band follows each query however many times the ring wrapped")


@bug("no-max-shift")
def test_large_scores(kata, rng):
    plan = _plan(rng, 2, 2, 9, 4, 4, (5, 1, 3), one_hot=False, scale=300.0)  # scores near 1e3
    got, _ = _feed(kata, plan)
    want = expected(plan)
    if not np.isfinite(got).all():
        ordinary = _plan(rng, 2, 2, 9, 4, 4, (5, 1, 3), one_hot=False)
        control, _ = _feed(kata, ordinary)
        if close(control, expected(ordinary), *tolerance(control, ordinary.q)).all():
            raise Failure(f"{plan.describe()} with scores near 1e3 returned NaN or inf, while the same calls with "
                          "ordinary scores are right: exp(1e3) overflows to inf and inf/inf is NaN; subtract each "
                          "row's maximum score before np.exp", "no-max-shift", exact=True, nonfinite=True)
    _compare(got, want, plan)


def test_float32(kata, rng):
    plan = _plan(rng, 2, 2, 10, 4, 3, (4, 1, 3, 1, 1), one_hot=False)
    plan = Plan(*(x.astype(np.float32) for x in (plan.q, plan.k, plan.v)), plan.window, plan.chunks)
    got, _ = _feed(kata, plan)
    expect_float(got, plan.describe())
    _compare(got, expected(plan), plan)


@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    for dtype in (np.float64, np.float32):  # a no-copy np.asarray keeps the caller's array for some dtypes only
        plan = _plan(rng, 2, 2, 6, 4, 3, (4, 2), one_hot=False)
        q, k, v = (x.astype(dtype) for x in (plan.q, plan.k, plan.v))
        cache = _new_cache(kata, 3)
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
def test_memory_stays_flat(kata, rng):
    cost.memory_stays_flat(kata, rng, _length)


@bug("cache-grows-unbounded")
@weight(2)
def test_step_cost_flat_in_history(kata, rng):
    cost.step_cost_flat(kata, rng)

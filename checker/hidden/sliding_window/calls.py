"""Running kata 13's window_attention on a plan of calls and judging the joined answer: shapes and len() after
each call, then the values against full attention under the band, named by the variant that reproduces them
(rivals rule a name out), the band described in words and pictured when the values are one-hot."""

import numpy as np

from checker.engine.testkit import Failure, Suspects, close, expect_precision, numbers_apart, one_array, tolerance
from checker.hidden.sliding_window import explain
from checker.hidden.sliding_window.cache_checks import new_cache, positions_of
from checker.hidden.sliding_window.variants import ATTENTION_RIVALS, ATTENTION_VARIANTS, Plan, expected


def plan_of(rng, b, h, n, d, window, chunks, seeded=0, one_hot=True, d_v=3, scale=1.0):
    q, k = scale * rng.normal(size=(b, h, n, d)), rng.normal(size=(b, h, n, d))
    v = explain.one_hot_values(b, h, n) if one_hot else rng.normal(size=(b, h, n, d_v))
    assert seeded + sum(chunks) == n
    return Plan(q, k, v, window, tuple(chunks), seeded)


def run_call(kata, cache, plan, index):
    start, t = list(plan.starts())[index]
    part = [x[:, :, start:start + t] for x in (plan.q, plan.k, plan.v)]
    call = (f"window_attention(q {part[0].shape}, k, v {part[2].shape}, cache holding {start} positions, "
            f"window={plan.window})")
    got = one_array(kata.window_attention(*part, cache, plan.window), call)
    want = part[0].shape[:3] + part[2].shape[3:]
    if got.shape != want:
        raise Failure(f"{call} returned shape {got.shape}, expected {want}: (b, h, t, d_v), one row per new query")
    return got, positions_of(cache, "cache")


def feed(kata, plan, cache=None):
    cache = new_cache(kata, plan.window) if cache is None else cache
    if plan.seeded:
        cache.append(plan.k[:, :, :plan.seeded], plan.v[:, :, :plan.seeded])
    outputs, lengths = [], []
    for index in range(len(plan.chunks)):
        got, count = run_call(kata, cache, plan, index)
        outputs.append(got)
        lengths.append(count)
    want = [start + t for start, t in plan.starts()]
    if lengths != want:
        raise Failure(f"{plan.describe()}: len(cache) was {lengths} after the calls, expected {want}: len counts "
                      "every position ever appended")
    return np.concatenate(outputs, axis=2), lengths


def compare(got, want, plan, why="", suspects=True):
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


def check_plan(kata, plan, why="", suspects=True):
    got, _ = feed(kata, plan)
    compare(got, expected(plan), plan, why, suspects)

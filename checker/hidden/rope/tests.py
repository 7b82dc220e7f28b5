"""Hidden tests for kata 06: rope(x, positions, base) and rope_attention(q, k, v, base).

Shapes hide nothing: b > 1, h > 1, d != n, d/2 odd and even, t < n_k. rope is first probed with one-hot rows
(rope of channel j alone shows which channel j turned into, and by what angle), so a wrong pairing, frequency
or direction is named with the channels and angles it used; then values against the reference on random
positions, per-row positions of a left-padded batch, positions up to 65 536 and float32 input, and the
relative-position property. The tolerance accepts angles computed in float32 (as Hugging Face does): it grows
with each angle. rope_attention is checked with t = n_k, a decode step (t = 1), a chunk (1 < t < n_k), a
batch where b = n_k = d (so a full k.T runs) and scores near 1e3; kata 01-03's bugs keep their ids there.
"""

import numpy as np

from checker.hidden.rope.probe import Probe, angles_text, radians, rope_call, run_rope
from checker.hidden.rope.variants import ATTENTION_RIVALS, ATTENTION_VARIANTS, ROPE_RIVALS, ROPE_VARIANTS, attend, \
    frequencies, right
from checker.engine.kept import expect_kept
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, Suspects, bug, call_text, changed, close, describe_difference, \
    expect_precision, first_difference, full_transpose_error, full_transpose_failure, one_array, tolerance

API = {"rope": ("x", "positions", "base"), "rope_attention": ("q", "k", "v", "base")}
EPS32 = float(np.finfo(np.float32).eps)
# float32 angles (Hugging Face's inv_freq and cos/sin cache) are off by a few float32 roundings of the angle
# itself: up to 6 of them measured over d = 4..128 and bases 100..500 000, so 12 leaves room and stays far below
# what a catalogued bug changes (a radian, at the positions tested).
ANGLE_ROUNDINGS = 12
CONTRACT = ("out[i] = x[i] cos a - x[i + d/2] sin a, out[i + d/2] = x[i + d/2] cos a + x[i] sin a, "
            "a = p * base ** (-2i / d)")


# --- running and comparing -------------------------------------------------------------------------------

def rope_tolerance(x, positions, base):
    """(rtol, atol) for rope(x, positions, base): float32 arithmetic anywhere, and angles rounded in float32.

    atol is an array of the output's shape: each pair's error is at most its angle's error times the
    pair's length, and the angle's error grows with the angle (with the position)."""
    x = np.asarray(x, np.float64)
    d = x.shape[-1]
    rtol, atol = tolerance(x.astype(np.float32))  # float32 arithmetic is always honest
    angles = np.abs(np.asarray(positions, np.float64))[..., None] * frequencies(d, base)  # (..., n, d/2)
    length = np.hypot(x[..., :d // 2], x[..., d // 2:])  # (..., n, d/2)
    slack = ANGLE_ROUNDINGS * EPS32 * np.maximum(angles, 1) * length  # (..., n, d/2)
    return rtol, atol + np.broadcast_to(np.concatenate([slack, slack], axis=-1), x.shape)


def _expect_rope(got, x, positions, base, call, why=""):
    """Fail unless got is rope(x, positions, base); name the bug whose output it is."""
    base = 10000.0 if base is None else base
    expect_precision(got, (x,), call)
    want = right(np.asarray(x, np.float64), positions, base)
    rtol, atol = rope_tolerance(x, positions, base)
    if close(got, want, rtol, atol).all():
        return
    detail = f"{call} returned wrong values {first_difference(got, want, rtol, atol)}"
    nonfinite = bool((~np.isfinite(got) & np.isfinite(want)).any())
    matched = _rope_suspect(got, np.asarray(x, np.float64), positions, base)
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True, nonfinite=nonfinite)
    raise Failure(f"{detail}: {why or CONTRACT}", nonfinite=nonfinite)


def _rope_suspect(got, x, positions, base=10000.0):
    """(bug id, why) when got is what a catalogued bug of rope outputs for (x, positions, base), else None."""
    want = right(x, positions, base)
    return Suspects(ROPE_VARIANTS, x, np.asarray(positions), base, rivals=ROPE_RIVALS).match(np.asarray(got, np.float64), want,
                                                                         *rope_tolerance(x, positions, base))


def _check_rope(kata, x, positions, base=None, why=""):
    got, call = run_rope(kata, x, positions, base)
    _expect_rope(got, x, positions, base, call, why)


# --- rope: shape first ----------------------------------------------------------------------------------

def test_rope_shape(kata, rng):
    x = rng.normal(size=(2, 3, 5, 8))
    got, call = run_rope(kata, x, np.arange(3, 8))
    if got.shape != x.shape:
        raise Failure(f"{call} returned shape {got.shape}, expected {x.shape}")


# --- rope: the pairing, the frequencies and the direction, seen on one-hot rows ------------------------

@bug("rope-wrong-pairing")
def test_pairing_is_half_split(kata):
    for d in (8, 6):  # d/2 even and odd
        probe = Probe(kata, d, 1)
        failure = probe.pairing_failure() or probe.interleaved_table_failure()
        if failure:
            raise failure


@bug("rope-wrong-frequency")
def test_frequencies(kata):
    d = 8
    probe = Probe(kata, d, 1)
    failure = probe.pairing_failure()
    if failure:
        raise failure
    theta = frequencies(d, 10000.0)
    first, second = zip(*(probe.pair(i) for i in range(d // 2)))
    rotation = all(close(np.array(a), np.array(b), 1e-4, 1e-4).all() and abs(np.hypot(*a) - 1) < 1e-4
                   for a, b in zip(first, second))  # each pair turned as a whole, its length kept
    at_zero = Probe(kata, d, 0)
    if rotation and at_zero.is_identity() and not probe.is_identity():
        got = np.array([np.arctan2(s, c) for c, s in first])  # the angle of each pair at position 1
        matches = close(np.cos(got), np.cos(theta), 1e-4, 1e-4) & close(np.sin(got), np.sin(theta), 1e-4, 1e-4)
        backwards = close(np.cos(got), np.cos(theta), 1e-4, 1e-4) & close(np.sin(got), -np.sin(theta), 1e-4, 1e-4)
        if not matches.all() and not backwards.all():
            default = f"{probe.call} (d = {d}, base 10000)"
            raise Failure(f"{default}: the pairs turned by {angles_text(got)} radians at position 1, expected "
                          f"theta_i = 10000 ** (-2i / {d}) = {angles_text(theta)}: pair {int(np.flatnonzero(~matches)[0])} "
                          "turns at the wrong frequency; theta_i = base ** (-2i / d), i = 0 ... d/2 - 1",
                          "rope-wrong-frequency", exact=True)


@bug("rope-rotation-sign")
def test_rotation_direction(kata):
    d = 8
    probe = Probe(kata, d, 1)
    failure = probe.pairing_failure()
    if failure:
        raise failure
    half = d // 2
    (c, s), (c2, s2) = probe.pair(0)  # theta_0 = 1: one radian at position 1
    cos1, sin1 = np.cos(1.0), np.sin(1.0)
    right_cos = close(np.array([c, c2]), np.array([cos1, cos1]), 1e-4, 1e-4).all()
    flipped = [bool(close(-value, sin1, 1e-4, 1e-4)) for value in (s, s2)]  # which sine term has the wrong sign
    if right_cos and any(flipped):
        how = ("the rotation goes the wrong way (by -angle)" if all(flipped) else
               f"the sine term of out[{'i' if flipped[1] else 'i + d/2'}] has the wrong sign, so the pair is not "
               "even rotated")
        raise Failure(f"{probe.call} with x the one-hot rows: channel 0 alone came back as {radians(c)} in channel 0 "
                      f"and {radians(probe.turned[0, half])} in channel {half}; channel {half} alone as "
                      f"{radians(probe.turned[half, 0])} in channel 0. Expected cos 1 = {radians(cos1)}, "
                      f"+sin 1 = {radians(sin1)} and -sin 1 = {radians(-sin1)}: {how}; {CONTRACT}",
                      "rope-rotation-sign", exact=True)
    at_zero = Probe(kata, d, 0).turned
    if close(np.array([at_zero[0, 0], at_zero[0, half]]), np.array([0.0, 1.0]), 1e-4, 1e-4).all():
        raise Failure(f"rope of the one-hot row of channel 0 at position 0 came back as {radians(at_zero[0, 0])} in "
                      f"channel 0 and {radians(at_zero[0, half])} in channel {half}, expected 1 and 0: position 0 "
                      "turns nothing, but here every pair turned a quarter turn, so sin and cos are swapped; "
                      f"{CONTRACT}", "rope-rotation-sign", exact=True)


# --- rope: values --------------------------------------------------------------------------------------

def test_rope_values(kata, ref, rng):
    x = rng.normal(size=(2, 3, 6, 10))
    positions = rng.choice(300, size=6, replace=False)  # any integers, in any order
    _check_rope(kata, x, positions)
    _check_rope(kata, x[0, 0], [int(p) for p in positions], why="positions may be a list of ints")
    _check_rope(kata, rng.normal(size=(3, 4, 14)), rng.choice(1000, size=4, replace=False), base=500.0)


@bug("rope-no-offset")
def test_positions_are_used(kata, ref, rng):
    x = rng.normal(size=(2, 4, 6))
    _check_rope(kata, x, np.arange(20, 24), why="each row turns by its own position, here 20, 21, 22, 23")
    _check_rope(kata, rng.normal(size=(2, 1, 8)), np.array([37]), why="the one row is at position 37")


def test_per_row_positions(kata, ref, rng):
    pads = np.array([2, 0, 3])  # a left-padded batch: each example's tokens start after its padding
    positions = np.maximum(np.arange(6) - pads[:, None], 0)[:, None, :]  # (b, 1, n)
    _check_rope(kata, rng.normal(size=(3, 2, 6, 8)), positions,
                why="positions (b, 1, n) give each example its own positions (broadcast over the heads)")
    _check_rope(kata, rng.normal(size=(3, 6, 8)), positions[:, 0, :],
                why="positions (b, n) give each example its own positions")
    steps = np.array([17, 5, 40])[:, None, None]  # one decode step each, at different lengths
    _check_rope(kata, rng.normal(size=(3, 2, 1, 8)), steps, why="positions (b, 1, 1): one position per example")


def test_large_positions(kata, ref, rng):
    positions = np.array([0, 1, 4095, 32768, 65535, 65536])
    for base, dtype in ((10000.0, np.float64), (500000.0, np.float64), (10000.0, np.float32)):
        x = rng.normal(size=(2, 6, 16)).astype(dtype)
        got, call = run_rope(kata, x, positions, base)
        _expect_rope(got, x, positions, base, call, why=_positions_wrong(got, x, positions, base))


def _positions_wrong(got, x, positions, base):
    """Which of the positions came back wrong, in words: what the output does, not a guess at why."""
    want = right(np.asarray(x, np.float64), positions, base)
    rtol, atol = rope_tolerance(x, positions, base)
    wrong = ~close(got, want, rtol, atol).reshape(-1, len(positions), x.shape[-1]).any(axis=(0, 2)) \
        if got.shape == want.shape else np.ones(len(positions), bool)
    bad, good = [int(p) for p in positions[~wrong]], [int(p) for p in positions[wrong]]
    if not bad:
        return CONTRACT
    text = f"positions {', '.join(map(str, good))} are wrong" + (f", {', '.join(map(str, bad))} right" if bad else "")
    if good and bad and min(good) > max(bad):
        text += f": the rotation fails past position {max(bad)} (positions up to 65 536 are in the contract)"
    return text + f"; each position's angles are p * base ** (-2i / d), exactly"


def test_float32(kata, ref, rng):
    x = rng.normal(size=(2, 3, 7, 12)).astype(np.float32)
    _check_rope(kata, x, rng.choice(64, size=7, replace=False))


def test_relative_position_property(kata, ref, rng):
    """rope(q, m) . rope(k, n) depends only on n - m: the same q and k at several shifts score alike."""
    d = 10
    q, k = rng.normal(size=d), rng.normal(size=d)
    for shift, starts in ((7, (0, 50, 1000, 3)), (-3, (3, 103, 4000, 9))):
        m = np.array(starts)
        queries, keys = np.tile(q, (len(m), 1)), np.tile(k, (len(m), 1))  # (4, d): the same q and k at each row
        q_got, q_call = run_rope(kata, queries, m)
        k_got, k_call = run_rope(kata, keys, m + shift)
        scores = np.sum(np.asarray(q_got, np.float64) * np.asarray(k_got, np.float64), axis=-1)  # (4,)
        if not close(scores, np.full_like(scores, scores[0]), 1e-4, 1e-4 * np.abs(q).sum() * np.abs(k).sum()).all():
            matched = _rope_suspect(q_got, queries, m) or _rope_suspect(k_got, keys, m + shift)
            raise Failure((f"{q_call} . {k_call}, the same q and k on every row, scored "
                          f"{', '.join(f'{s:.5g}' for s in scores)} at (m, n) = "
                          f"{', '.join(f'({a}, {a + shift})' for a in m)}: with n - m = {shift} each time they "
                          "must score alike, the rotated q . k depends only on the distance n - m") +
                          (f": {matched[1]}" if matched else "; turn each pair by a rotation (the cos and sin of one "
                           "angle, with the signs of the contract)"), matched and matched[0], exact=bool(matched))
        _expect_rope(q_got, queries, m, None, q_call)
        _expect_rope(k_got, keys, m + shift, None, k_call)


# --- rope_attention ------------------------------------------------------------------------------------

FORMULA = "softmax(rope(q) . rope(k) / sqrt(d), causal bottom-right) @ v"


def _attention_call(q, k, v):
    return call_text("rope_attention", q=q, k=k, v=v)


def _learner(function, q, k, v, call, *base):
    """function(q, k, v[, base]) run by the learner; a batched k.T's shape error is named, not left as a crash."""
    try:
        return function(q, k, v, *base)
    except LearnerError as error:
        if error.not_implemented or not full_transpose_error(error.message, np.shape(q), np.shape(k)):
            raise
        raise full_transpose_failure(call, error, np.shape(k)) from None


def _attention_tolerance(q, k, v):
    """(rtol, atol) for rope_attention: float32 arithmetic anywhere. A score's rounding grows with the
    score, which can reach |q| |k| / sqrt(d); the output mixes values, so its rounding scales with them."""
    q32, k32, v32 = (np.asarray(a, np.float32) for a in (q, k, v))
    bound = np.linalg.norm(q, axis=-1).max() * np.linalg.norm(k, axis=-1).max() / np.sqrt(np.shape(q)[-1])
    rtol, atol = tolerance(q32, k32, v32, np.array([bound], np.float32))
    return rtol, max(atol, rtol * float(np.abs(v).max()))


def _run_attention(kata, q, k, v, base=None):
    """The learner's rope_attention(q, k, v[, base]) as an array of the right shape, and the call as text."""
    call = _attention_call(q, k, v) if base is None else _attention_call(q, k, v)[:-1] + f", base={base:g})"
    got = one_array(_learner(kata.rope_attention, q, k, v, call, *(() if base is None else (base,))), call)
    want_shape = (*np.broadcast_shapes(np.shape(q)[:-2], np.shape(v)[:-2]), np.shape(q)[-2], np.shape(v)[-1])
    if got.shape != want_shape:
        raise Failure(f"{call} returned shape {got.shape}, expected {want_shape}: (..., t, d_v), one row per query")
    return got, call


ROPE_IDS = {variant.variant_of for variant in ROPE_VARIANTS}  # rope's own mistakes, seen inside rope_attention


def _confirmed(kata, bug_id, base):
    """A rope mistake seen inside rope_attention is named only if a chunk (t = 3 of n_k = 7: queries not at 0 ...
    t - 1, every size different) shows the same id: on t = n_k, positions read back to front turn every score by
    -angle, exactly as rope-rotation-sign does (only differences of positions reach the scores)."""
    q, k, v = _qkv(np.random.default_rng(2017), (2, 2), 3, 7, 8, 5)
    try:
        got = np.asarray(kata.rope_attention(q, k, v, base), np.float64)
    except LearnerError:
        return False
    want = attend(q, k, v, base)
    if got.shape != want.shape:
        return False
    matched = Suspects(ATTENTION_VARIANTS, q, k, v, base, rivals=ATTENTION_RIVALS).match(
        got, want, *_attention_tolerance(q, k, v))
    return matched is not None and matched[0] == bug_id


def _compare_attention(got, call, ref, q, k, v, why="", base=10000.0, kata=None):
    """Fail unless got is rope_attention(q, k, v, base); name the bug whose output it is, else say how it differs.
    A rope mistake is named only once a chunk confirms it (`_confirmed`, with `kata`)."""
    want = ref.rope_attention(*(np.asarray(a, np.float64) for a in (q, k, v)), base)
    expect_precision(got, (q, k, v), call)
    rtol, atol = _attention_tolerance(q, k, v)
    if close(got, want, rtol, atol).all():
        return
    detail = f"{call} returned wrong values {first_difference(got, want, rtol, atol)}"
    inputs = [np.asarray(a, np.float64) for a in (q, k, v)]
    matched = Suspects(ATTENTION_VARIANTS, *inputs, base, rivals=ATTENTION_RIVALS).match(got, want, rtol, atol)
    if matched and matched[0] in ROPE_IDS and not (kata is not None and _confirmed(kata, matched[0], base)):
        matched = None
    nonfinite = bool((~np.isfinite(got) & np.isfinite(want)).any())
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True, nonfinite=nonfinite)
    axes = ("example", "head")[:got.ndim - 2] + ("query", "channel")
    looks = describe_difference(got, want, rtol, atol, axes[-got.ndim:])
    raise Failure(detail + "".join(f"; {text}" for text in (looks, why) if text) + f"; expected {FORMULA}",
                  nonfinite=nonfinite)


def _check_attention(kata, ref, q, k, v, why=""):
    got, call = _run_attention(kata, q, k, v)
    _compare_attention(got, call, ref, q, k, v, why, kata=kata)


def _qkv(rng, lead, t, n_k, d, d_v):
    return rng.normal(size=(*lead, t, d)), rng.normal(size=(*lead, n_k, d)), rng.normal(size=(*lead, n_k, d_v))


def test_attention_shape(kata, ref, rng):
    _run_attention(kata, *_qkv(rng, (2, 3), 4, 6, 8, 6))


def test_attention_prefill(kata, ref, rng):
    _check_attention(kata, ref, *_qkv(rng, (2, 3), 6, 6, 8, 4), why="t = n_k: query i is position i")


@bug("rope-no-offset")
def test_attention_decode_step(kata, ref, rng):
    _check_attention(kata, ref, *_qkv(rng, (2, 2), 1, 9, 8, 6),
                     why="one new query over 9 keys: it is position 8, turned by 8 * theta, and sees every key")


@bug("mask-top-left")
def test_attention_chunk(kata, ref, rng):
    _check_attention(kata, ref, *_qkv(rng, (3, 2), 3, 8, 6, 4),
                     why="3 new queries over 8 keys: query i is position 5 + i and sees keys 0 ... 5 + i")


@bug("rope-rotates-values")
def test_values_are_not_rotated(kata, ref, rng):
    _check_attention(kata, ref, *_qkv(rng, (2, 2), 5, 5, 8, 8))  # d_v = d: rotated values keep their shape


@bug("batch-transpose")
def test_attention_batched_square(kata, ref, rng):
    # b = n_k = d = 6: a full k.T then runs without error, so only the values can tell
    _check_attention(kata, ref, *_qkv(rng, (6,), 4, 6, 6, 4))


@bug("no-max-shift")
def test_attention_large_scores(kata, ref, rng):
    q, k, v = _qkv(rng, (2, 2), 3, 7, 8, 6)
    large = (30 * q, 30 * k, v)  # scores near 1e3: exp overflows unless each row's maximum is subtracted first
    got, call = _run_attention(kata, *large)
    try:
        _compare_attention(got, call, ref, *large, kata=kata)
    except Failure as failure:
        if failure.bug or np.isfinite(got).all():
            raise
        _check_attention(kata, ref, q, k, v)  # the same inputs at ordinary scale: any other bug shows here
        bad = int((~np.isfinite(got)).sum())
        raise Failure(f"{call} returned {bad} NaN or inf of {got.size} numbers with scores near 1e3, while the same "
                      "q and k 30 times smaller give the right answer: exp(1e3) overflows to inf and inf/inf is NaN; "
                      "subtract each row's maximum score before np.exp", "no-max-shift", exact=True,
                      nonfinite=True) from None


def test_attention_base(kata, ref, rng):
    q, k, v = _qkv(rng, (2, 2), 3, 9, 8, 4)
    got, call = _run_attention(kata, q, k, v, 500000.0)
    default = ref.rope_attention(q, k, v)
    why = "the base is rope_attention's to pass on to rope"
    if close(got, default, *_attention_tolerance(q, k, v)).all():
        why = "the output is what base=10000 gives: the base argument is not passed on to rope"
    _compare_attention(got, call, ref, q, k, v, why, base=500000.0, kata=kata)


def _unrotated(ref, u, positions, base=10000.0):
    """Vectors that rope turns into u at each of `positions`: u rotated back by each position's angle."""
    return ref.rope(np.broadcast_to(u, u.shape[:-2] + (len(positions), u.shape[-1])), -np.asarray(positions), base)


@bug("fill-too-shallow")
def test_attention_mask_wins_over_large_scores(kata, ref, rng):
    # every rotated query is -c u and every rotated key u: each score is -c |u|^2 / sqrt(d) = -3e4, below any
    # finite fill, while the blocked keys (the future of the first 2 of 3 new queries) must still get nothing
    t, n_k, d = 3, 6, 8
    u = rng.normal(size=(2, 1, d))
    u *= np.sqrt(np.sqrt(d) / (u ** 2).sum(axis=-1, keepdims=True))  # |u|^2 / sqrt(d) = 1
    q = _unrotated(ref, -3e4 * u, np.arange(n_k - t, n_k))  # (2, t, d)
    k = _unrotated(ref, u, np.arange(n_k))  # (2, n_k, d)
    v = rng.normal(size=(2, n_k, 4))
    got, call = _run_attention(kata, q, k, v)
    call += " with every visible score near -3e4"
    visible = np.arange(n_k) <= np.arange(n_k - t, n_k)[:, None]  # (t, n_k)
    blocked_mean = np.stack([v[:, ~row].mean(axis=1) if (~row).any() else v[:, row].mean(axis=1) for row in visible], 1)
    if np.isfinite(got).all() and close(got, blocked_mean, *_attention_tolerance(q, k, v)).all():
        raise Failure(f"{call}: each query's output is the mean of the values of the keys it may NOT see: the "
                      "blocked scores were filled with a finite number, and the real scores went below it",
                      "fill-too-shallow", exact=True)
    _compare_attention(got, call, ref, q, k, v, why="the mask wins whatever the scores are", kata=kata)


def test_attention_float32(kata, ref, rng):
    q, k, v = (a.astype(np.float32) for a in _qkv(rng, (2, 2), 2, 7, 10, 6))
    _check_attention(kata, ref, q, k, v)


@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    for dtype in (np.float64, np.float32):  # a no-copy np.asarray keeps the caller's array for some dtypes only
        x, positions = rng.normal(size=(2, 3, 5, 8)).astype(dtype), np.arange(4, 9)
        _, after = kata.rope.keeping_args(x.copy(), positions.copy())
        _expect_unchanged(rope_call(x, positions, None), ("x", "positions"), (x, positions), after)
        q, k, v = (a.astype(dtype) for a in _qkv(rng, (2, 2), 3, 6, 8, 6))
        call = _attention_call(q, k, v)
        _, after = _learner(kata.rope_attention.keeping_args, q.copy(), k.copy(), v.copy(), call)
        _expect_unchanged(call, ("q", "k", "v"), (q, k, v), after)


def _expect_unchanged(call, names, before, after):
    for name, was, now in zip(names, before, after):
        now = np.asarray(now)
        if not np.array_equal(was, now):
            change = f" ({changed(was, now)})" if now.shape == was.shape else ""
            raise Failure(f"{call} changed its argument {name}{change}: work on new arrays, never the caller's",
                          "mutates-input", exact=True)


def test_results_stay_unchanged(kata, rng):
    # a result must not change because of a later call: keep the first, read it again after a second
    x1, x2 = rng.normal(size=(2, 5, 8)), rng.normal(size=(2, 5, 8))
    positions = np.arange(3, 8)
    expect_kept(kata.rope, (x1, positions), (x2, positions), rope_call(x1, positions, None), "a second call")
    first, second = ([rng.normal(size=(2, n, 8)) for n in (2, 5, 5)] for _ in range(2))
    call = call_text("rope_attention", q=first[0], k=first[1], v=first[2])
    expect_kept(kata.rope_attention, tuple(first), tuple(second), call, "a second call on other inputs")

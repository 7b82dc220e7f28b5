"""Hidden tests for kata 08: flash_attention(q, k, v, block_size=64, causal=False, mask=None).

The right answer is plain attention, softmax(q . k^T / sqrt(d), masked) @ v, computed here. The online
softmax's bugs hide on ordinary inputs (a missing rescale is off by 1e-7 when scores are small), so the
inputs are built to show them: one channel of every key carries a level chosen per block, so the running
max grows, shrinks, or falls by hundreds from one block to the next; block sizes that do not divide n_k,
of 1 and beyond n_k; causal with n_q != n_k; left padding covering the whole first block; queries with
no visible key; scores near -1000 and +1000. Memory is part of the contract: the peak resident memory of the learner's process, which the
kernel counts and the checker reads, tells an (n_q, n_k) table (even of bools) apart from blocks.
"""

import numpy as np

from checker.sandbox import LearnerError

from checker.hidden.flash.diagnosis import (block_left_out, causal_boundary, difference_text, empty_rows_bug,
                                           left_padding_nan)
from checker.hidden.flash.telling import RIVALS, confirmed, rival_text
from checker.hidden.flash.variants import VARIANTS, allowed_table
from checker.engine.testkit import caps, measured, weight
from checker.engine.testkit import Failure, Suspects, bug, call_text, changed, close, expect_precision, one_array, tolerance

API = {"flash_attention": ("q", "k", "v", "block_size", "causal", "mask")}
RIGHT = "the output is softmax(q . k^T / sqrt(d), masked) @ v, whatever the block size"


# --- inputs whose running max moves as chosen -------------------------------------------------------

def _inputs(rng, lead, n_q, n_k, d, d_v, levels=None, reach=None):
    """q, k, v with score(i, j) = reach[i] * levels[j] + noise of about 1: `levels` (one per key) sets
    where each block's max sits, `reach` (one per query, default 1) how strongly each query sees it."""
    q, k, v = rng.normal(size=(*lead, n_q, d)), rng.normal(size=(*lead, n_k, d)), rng.normal(size=(*lead, n_k, d_v))
    if levels is not None:
        k[..., 0] = np.asarray(levels, float) + rng.normal(size=(*lead, n_k)) * 0.3
        q[..., 0] = np.sqrt(d) * (1.0 if reach is None else np.asarray(reach, float))  # score = q . k / sqrt(d)
    return q, k, v


def _levels(block_size, *per_block, n_k=None):
    """Key levels block by block: `_levels(3, 0, 6, 3)` is 0, 0, 0, 6, 6, 6, 3, 3, 3 (cut at n_k)."""
    levels = np.repeat(np.asarray(per_block, float), block_size)
    return levels if n_k is None else levels[:n_k]


# --- running and comparing ----------------------------------------------------------------------------

def _call_text(q, k, v, block_size, causal=False, mask=None, mask_text=None):
    args = {"q": q, "k": k, "v": v, "block_size": block_size}
    if causal:
        args["causal"] = True
    text = call_text("flash_attention", **args)
    if mask is not None:
        text = text[:-1] + f", mask {mask_text or np.shape(mask)})"
    return text


def _run(kata, ref, q, k, v, block_size, causal=False, mask=None, mask_text=None):
    """The learner's output, the right one (float64, the reference), and the call as text."""
    call = _call_text(q, k, v, block_size, causal, mask, mask_text)
    extra = {"causal": True} if causal else {}
    if mask is not None:
        extra["mask"] = mask
    try:
        got = one_array(kata.flash_attention(q, k, v, block_size=block_size, **extra), call)
    except LearnerError as error:
        _width_only(kata, error, call, q, k, v, block_size, extra)
        raise
    q64, k64, v64 = (np.asarray(x, np.float64) for x in (q, k, v))
    return got, ref.flash_attention(q64, k64, v64, block_size=block_size, causal=causal, mask=mask), call


def _width_only(kata, error, call, q, k, v, block_size, extra):
    """Fail, saying so, when a call that raised runs once v is as wide as q and k: the code assumes d_v = d."""
    d, d_v = np.shape(q)[-1], np.shape(v)[-1]
    if error.not_implemented or d == d_v:
        return
    same = np.resize(np.asarray(v), np.shape(v)[:-1] + (d,))  # the values cut or repeated to d channels
    try:
        kata.flash_attention(q, k, same, block_size=block_size, **extra)
    except LearnerError:
        return
    raise Failure(f"{call} raised {error}, and runs when v has d = {d} channels like q and k: the code assumes "
                  f"d_v = d, but v has d_v = {d_v}; the running output is (..., n_q, d_v), o = np.zeros((..., n_q, "
                  "v.shape[-1]))") from None


FLOAT32_EPS = float(np.finfo(np.float32).eps)


def _tolerance(got, q, k, v):
    """testkit's tolerance, widened for float32 inside: a score s rounds by about eps * |s| in float32,
    and exp carries that into every weight, so the slack grows with the largest score (1e-3 at 800)."""
    rtol, atol = tolerance(got, q, k, v)
    scores = np.abs(np.asarray(q, np.float64)).sum(-1).max() * np.abs(np.asarray(k, np.float64)).max()
    slack = 16 * FLOAT32_EPS * (1 + scores / np.sqrt(q.shape[-1]))
    return max(rtol, slack), max(atol, slack * float(np.abs(np.asarray(v, np.float64)).max()))


def _where(index):
    *lead, i, c = index
    return f"query {i}" + (f" at {list(lead)}" if lead else "") + f", channel {c}"


def _compare(got, want, call, q, k, v, block_size, causal=False, mask=None, exercise="", variants=VARIANTS,
             rule=None, kata=None):
    """Fail unless the output matches; name the bug whose output it equals (among `variants`, no rival's), or
    that the rows show (`rule`, then the masked-first-block and no-visible-key rules), once the learner's file
    (`kata`) confirms it where telling.py asks for a second opinion; else say what differs."""
    if got.shape != want.shape:
        raise Failure(f"{call} returned shape {got.shape}, expected {want.shape}: (..., n_q, d_v)")
    expect_precision(got, (q, k, v), call)
    rtol, atol = _tolerance(got, q, k, v)
    bad = ~close(got, want, rtol, atol)
    if not bad.any():
        return
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    detail = f"{call}: {_where(index)}: got {got[index]:.6g}, expected {want[index]:.6g}"
    nonfinite = bool((~np.isfinite(got) & np.isfinite(want)).any())
    q64, k64, v64 = (np.asarray(x, np.float64) for x in (q, k, v))
    allowed = allowed_table(q64, k64, causal, mask)
    wrong = bad.any(axis=-1)  # (..., n_q)
    # An output of only zeros where a mask applies is also what a mask hiding every key gives (a causal offset
    # of the wrong sign, say): it names no variant that outputs zeros (an inverted rescale) by itself.
    hides_every_key = not got.any() and (causal or mask is not None)
    suspects = Suspects(variants, q64, k64, v64, block_size, causal, mask, rivals=RIVALS)
    matched = (None if hides_every_key else suspects.match(got, want, rtol, atol)) or \
        (rule and rule(got, want, wrong)) or left_padding_nan(got, wrong, allowed, block_size) or \
        empty_rows_bug(got, wrong, allowed)
    if matched and not confirmed(kata, matched[0]):
        matched = None  # this input cannot tell the bug from its rivals, and the inputs that can do not show it
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True, nonfinite=nonfinite)
    difference = difference_text(got, want, wrong, allowed, block_size, rtol, atol)
    args = (q64, k64, v64, block_size, causal, mask)
    difference += (causal_boundary(got, args, rtol, atol) if causal else "") or block_left_out(got, args, rtol, atol) \
        or rival_text(got, args, rtol, atol)
    raise Failure(f"{detail}; {difference}. This check: {exercise or RIGHT}", nonfinite=nonfinite)


def _check(kata, ref, q, k, v, block_size, causal=False, mask=None, mask_text=None, exercise="",
           variants=VARIANTS, rule=None):
    got, want, call = _run(kata, ref, q, k, v, block_size, causal, mask, mask_text)
    _compare(got, want, call, q, k, v, block_size, causal, mask, exercise, variants, rule, kata)


# --- shape first, then values ---------------------------------------------------------------------------

def test_shape(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 3), 5, 7, 4, 6)
    got, want, call = _run(kata, ref, q, k, v, 3)
    if got.shape != want.shape:
        raise Failure(f"{call} returned shape {got.shape}, expected {want.shape}: one row of d_v values per "
                      "query, (..., n_q, d_v)")


@bug("online-no-rescale")
def test_running_max_moves(kata, ref, rng):
    # blocks of 3 keys whose max climbs, dips and climbs again: every rescale mistake shows
    q, k, v = _inputs(rng, (2, 3), 5, 12, 4, 3, levels=_levels(3, 0, 6, 3, 9), reach=rng.uniform(0.6, 1.2, 5))
    _check(kata, ref, q, k, v, 3, exercise="no mask, blocks of 3 keys whose scores sit near 0, 6, 3 and 9 "
           "(times 0.6-1.2 per query), so the running max climbs, dips and climbs again")


@bug("online-max-reset")
def test_running_max_falls(kata, ref, rng):
    # queries 0-2 score about 10 in the first block and about -800 after it (exp(810) overflows, exp(10) does
    # not: no running max at all is still right here); queries 3-5 barely see the levels
    q, k, v = _inputs(rng, (2,), 6, 8, 4, 3, levels=_levels(4, 10, -800), reach=[1, 1, 1, 0.01, 0.01, 0.01])
    _check(kata, ref, q, k, v, 4, exercise="blocks of 4 keys; queries 0-2 score about 10 in the first block "
           "and about -800 in the second (the running max must stay at 10), queries 3-5 about 0.1 and -8")


@bug("drops-last-block")
def test_last_block_shorter(kata, ref, rng):
    for n_k, block_size in ((11, 4), (7, 5)):  # the largest scores sit in the last, shorter block
        q, k, v = _inputs(rng, (2, 2), 3, n_k, 4, 5, levels=np.linspace(0, 6, n_k))
        _check(kata, ref, q, k, v, block_size, exercise=f"n_k = {n_k} keys in blocks of {block_size}, the last "
               f"block {n_k % block_size} keys long and holding the largest scores")


@bug("drops-last-block")
def test_any_block_size(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 4, 9, 3, 5, levels=np.linspace(0, 6, 9) * rng.permutation([1, -1] * 4 + [1]))
    for block_size in (1, 9):  # one key a block, one block of all keys
        _check(kata, ref, q, k, v, block_size, exercise=f"block_size = {block_size} with n_k = 9 (the numbers "
               "do not depend on the block size)")
    # Right with those, wrong with one block longer than n_k: only a loop over whole blocks does that (a
    # rescale inverted gives the same zeros here, but it would have failed with one key a block).
    exercise = "block_size = 16 beyond n_k = 9: one short block of every key"
    got, want, call = _run(kata, ref, q, k, v, 16)
    if got.shape == want.shape and (not got.any() or not np.isfinite(got).any()):  # all 0 or all NaN, after the controls
        raise Failure(f"{call} returned only {'zeros' if not got.any() else 'NaN'} ({exercise}), and is right with "
                      "blocks of 1 and of 9 keys: the loop visits whole blocks only, so a block longer than n_k is "
                      "never visited; loop with range(0, n_k, block_size) and let the last block be shorter",
                      "drops-last-block", exact=True)
    _compare(got, want, call, q, k, v, 16, False, None, exercise,
             [suspect for suspect in VARIANTS if suspect.variant_of == "drops-last-block"], kata=kata)


@bug("mask-top-left")
def test_causal_bottom_right(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 8, 10, 4, 3, levels=_levels(4, 0, 6, 3, n_k=10))
    _check(kata, ref, q, k, v, 4, causal=True, exercise="causal=True with n_q = 8 < n_k = 10, blocks of 4: "
           "query i sees keys 0 to 2 + i")


@bug("masked-block-nan")
def test_left_padding(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 3, 10, 4, 3, levels=np.linspace(0, 4, 10))
    mask = np.ones((2, 1, 1, 10), bool)
    mask[1, ..., :5] = False  # example 1 is left-padded: its first block of 3 keys is all masked
    _check(kata, ref, q, k, v, 3, mask=mask, mask_text="(2, 1, 1, 10): example 1's keys 0-4 are padding",
           exercise="a key-padding mask; example 1's keys 0-4 are masked, its whole first block of 3 among them, "
           "example 0 has none masked")


@bug("fill-too-shallow")
def test_mask_wins_below_any_fill(kata, ref, rng):
    # queries 0-1 score about -20000, query 2 about -1000; example 1 has padding: a finite fill of -1e4
    # sits above the real scores of queries 0-1 (a running max started at 0 fails query 2 as well)
    q, k, v = _inputs(rng, (2,), 3, 8, 4, 3, levels=np.linspace(2e4, 2e4 + 4, 8), reach=[-1, -1, -0.05])
    mask = np.ones((2, 1, 8), bool)
    mask[1, :, :3] = False
    _check(kata, ref, q, k, v, 4, mask=mask, mask_text="(2, 1, 8): example 1's keys 0-2 are padding",
           exercise="queries 0-1 score about -20000 and query 2 about -1000 against every key; example 1's "
           "keys 0-2 are masked", rule=lambda got, want, wrong: _shallow_fill(got, want, wrong, v, mask))


def _shallow_fill(got, want, wrong, v, mask):
    """fill-too-shallow when the only wrong queries are in the padded example and queries 0-1 (real scores
    about -20000, below a finite fill) average the masked keys' values (each masked key weighs exp(0)), or
    are 0 (those weights zeroed) or NaN."""
    blocked = ~mask[:, 0]  # (2, n_k): the padding of each example
    padded = blocked.any(axis=-1)  # (2,)
    masked_mean = (blocked[..., None] * v).sum(-2) / np.maximum(blocked.sum(-1), 1)[:, None]  # (2, d_v)
    if not wrong[padded, :2].any() or wrong[~padded].any():
        return None
    rows, means = got[padded, :2], np.broadcast_to(masked_mean[padded, None], got[padded, :2].shape)
    deep = wrong[padded, :2]  # (padded examples, 2)
    rows, means = rows[deep], means[deep]
    if np.isclose(rows, means, rtol=1e-4, atol=1e-6).all() or not rows.any() or np.isnan(rows).all():
        return "fill-too-shallow", ("masked scores got a finite fill that the real scores went below (they are "
                                    "about -20000), so the fill set the running max and the real keys' "
                                    "exponentials underflowed to 0: fill masked scores with -inf (and shift by 0 "
                                    "while the max is -inf)")
    return None


@bug("full-row-nan")
def test_no_visible_key(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 7, 5, 4, 3, levels=np.linspace(0, 4, 5))
    _check(kata, ref, q, k, v, 2, causal=True, exercise="causal=True with n_q = 7 > n_k = 5: queries 0-1 see "
           "no key (their output is 0), query i >= 2 sees keys 0 to i - 2")
    mask = np.ones((2, 1, 1, 5), bool)
    mask[1] = False  # example 1: every key is padding
    _check(kata, ref, q, k, v, 2, mask=mask, mask_text="(2, 1, 1, 5): every key of example 1 is padding",
           exercise="every key of example 1 masked (its outputs are 0), none of example 0's")


@bug("mask-after-softmax")
def test_mask_and_causal(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 4, 9, 4, 3, levels=_levels(4, 3, 0, 6, n_k=9))
    mask = rng.random((2, 1, 4, 9)) < 0.6
    mask[..., -1] = True  # every query keeps its own (last visible) key
    mask[..., :4] &= rng.random((2, 1, 4, 4)) < 0.3  # the high-scoring first block mostly masked
    _check(kata, ref, q, k, v, 4, causal=True, mask=mask, exercise="a random (2, 1, 4, 9) mask and causal=True "
           "together, blocks of 4, the high-scoring first block mostly masked")
    _check(kata, ref, q, k, v, 4, mask=mask[0, 0], exercise="one (n_q, n_k) mask shared by every example and "
           "head, no causal")


@bug("causal-ignored")
def test_every_flag_pair(kata, ref, rng):
    # causal off and on, each with no mask, a padding mask and a mask with holes: a file that drops one flag
    # when the other is given is right on the pairs it honours and wrong, the same way, on the others
    q, k, v = _inputs(rng, (2, 2), 7, 9, 4, 3, levels=_levels(4, 2, 0, 5, n_k=9))
    padding = np.ones((2, 1, 1, 9), bool)
    padding[1, ..., :2] = False
    holes = rng.random((2, 1, 7, 9)) < 0.7
    holes[..., 0] = True  # every query keeps a visible key
    pairs = [(causal, mask, text) for mask, text in ((None, None), (padding, "(2, 1, 1, 9): example 1's keys 0-1 "
             "are padding"), (holes, "(2, 1, 7, 9) with holes")) for causal in (False, True)]
    runs = [(causal, mask, text, *_run(kata, ref, q, k, v, 4, causal, mask, text)) for causal, mask, text in pairs]
    wrong = [run for run in runs if run[3].shape != run[4].shape or not close(run[3], run[4], *_tolerance(run[3], q, k,
                                                                                                          v)).all()]
    both = [run for run in runs if run[0] and run[1] is not None]
    without_causal = [run[3].shape == run[4].shape and close(run[3], ref.flash_attention(q, k, v, 4, mask=run[1]),
                                                             *_tolerance(run[3], q, k, v)).all() for run in both]
    if wrong == both and all(without_causal):
        raise Failure(f"{both[0][5]}: with a mask given, causal=True was dropped: the outputs equal attention under "
                      "the mask alone, with a padding mask and with a mask with holes, and causal=True without a "
                      "mask is right; both apply: a key is visible iff the mask allows it AND j <= n_k - n_q + i",
                      "causal-ignored", exact=True)
    for causal, mask, text, got, want, call in wrong[:1]:
        _compare(got, want, call, q, k, v, 4, causal, mask, kata=kata,
                 exercise=f"causal={causal}, mask {text or 'none'}")


@bug("no-max-shift")
def test_scores_far_above_zero(kata, ref, rng):
    # queries 0-2 score about +1000 against every key: exp(score) overflows, exp(score - m) never does
    q, k, v = _inputs(rng, (2,), 5, 8, 4, 3, levels=np.linspace(1000, 1004, 8), reach=[1, 1, 1, 0.002, 0.002])
    exercise = "queries 0-2 score about +1000 against every key, queries 3-4 about 2"
    got, want, call = _run(kata, ref, q, k, v, 4)
    if not np.isfinite(got).any() and got.shape == want.shape:  # only NaN: a symptom, unless ordinary scores work
        small, right, _ = _run(kata, ref, q * 0.002, k, v, 4)
        if small.shape == right.shape and close(small, right, *tolerance(small, q, k, v)).all():
            raise Failure(f"{call} returned only NaN or inf ({exercise}), and is right on the same keys with the "
                          "queries 500 times smaller: exp(score) overflows to inf above about 709 (88 in float32) "
                          "and inf / inf = NaN; keep the running max m and take exp(score - m)", "no-max-shift",
                          exact=True, nonfinite=True)
    _compare(got, want, call, q, k, v, 4, False, None, exercise, kata=kata)


@bug("max-floor-zero")
def test_scores_far_below_zero(kata, ref, rng):
    # queries 0-2 score about -1000 against every key: exp(score - 0) underflows; query 4 scores about +1000,
    # where only exp without any max overflows (so the two mistakes give different outputs)
    q, k, v = _inputs(rng, (2,), 5, 8, 4, 3, levels=np.linspace(1000, 1004, 8), reach=[-1, -1, -1, 0.002, 1])
    _check(kata, ref, q, k, v, 4, exercise="queries 0-2 score about -1000 against every key, query 3 about 2, "
           "query 4 about +1000")


def test_values_as_wide_as_keys(kata, ref, rng):
    # d_v = d, the usual case (the other checks use d_v != d, so d_v and d cannot be confused)
    q, k, v = _inputs(rng, (2, 2), 4, 9, 6, 6, levels=_levels(3, 0, 5, 2))
    _check(kata, ref, q, k, v, 3, exercise="d_v = d = 6, blocks of 3 keys whose scores sit near 0, 5 and 2")


def test_default_block_size(kata, ref, rng):
    q, k, v = _inputs(rng, (1, 2), 3, 150, 4, 3, levels=np.linspace(0, 8, 150))
    call = call_text("flash_attention", q=q, k=k, v=v)
    got = one_array(kata.flash_attention(q, k, v), call)
    _compare(got, ref.flash_attention(q, k, v), call, q, k, v, 64, exercise="no block_size given (64: blocks of "
             "64, 64 and 22 of n_k = 150 keys), scores rising from 0 to 8 along the keys", kata=kata)


def test_float32(kata, ref, rng):
    q, k, v = (x.astype(np.float32) for x in _inputs(rng, (2, 2), 5, 11, 4, 3, levels=_levels(3, 0, 6, 3, 9, n_k=11)))
    mask = np.ones((2, 1, 1, 11), bool)
    mask[0, ..., :4] = False
    got, want, call = _run(kata, ref, q, k, v, 3, True, mask, "(2, 1, 1, 11): example 0's keys 0-3 are padding")
    if got.dtype.kind != "f":
        raise Failure(f"{call} returned dtype {got.dtype}, expected floating point")
    _compare(got, want, call, q, k, v, 3, True, mask, exercise="float32 inputs, causal=True with n_q = 5 < n_k = 11, "
             "blocks of 3, example 0's keys 0-3 masked", kata=kata)


# --- memory: nothing of size n_q * n_k ------------------------------------------------------------------

MEMORY_QUERIES, MEMORY_KEYS, MEMORY_BLOCK = 384, 12288, 32
# The figure is the kernel's, read by the checker from outside the learner's process: the most resident memory
# the process ever held, from before the learner's code loaded to the end of the call (this test has a child of
# its own, so nothing else is in it). An (n_q, n_k) table of bools is 4.5 MiB here, of float64 36 MiB; a tiled
# call holds its (n_q, block_size) tiles, q, k and v (held once in the child: the sandbox makes no copy of a
# call's arguments): 1-2.2 MiB in NumPy, up to 2.5 in PyTorch (its own first-use allocations count too, and vary
# from run to run). The line: 85% of a bool table. Few queries, many keys: the same table as 576 x 8,192 with
# (384, 32) tiles; every honest file stays under 0.65 of the line, every table over 1.5 (bench/margins.py: 16,384
# keys gave the same margins before the copy went, at a third more work). Fewer pairs do not separate:
# PyTorch's ~2.5 MiB of its own would reach the line of a 3 MiB table.
TAIL = 32  # the queries of a big call compared with the reference's answer (cheaper than all of them)
TABLE_SHARE = 0.85
MEMORY_PATHS = ({}, {"causal": True, "mask": "padding"})  # no mask; causal and a padding mask both on


def _mib(size):
    return f"{size / 2**20:.2f} MiB"


@measured
@bug("materializes-scores")
@weight(3)
@caps(50)
def test_memory_grows_with_blocks_not_table(kata, ref, rng):
    big = _inputs(rng, (1, 1), MEMORY_QUERIES, MEMORY_KEYS, 2, 2)
    small = _inputs(rng, (1, 1), 16, 4 * MEMORY_BLOCK, 2, 2)  # the values first, cheaply: memory is judged on right numbers
    table = MEMORY_QUERIES * MEMORY_KEYS  # bytes of an (n_q, n_k) table of bools
    for path in MEMORY_PATHS:
        for q, k, v in (small, big):
            extra, mask_text, n_k = dict(path), None, k.shape[-2]
            if extra.get("mask"):
                extra["mask"] = np.ones((1, 1, 1, n_k), bool)
                extra["mask"][..., :5] = False
                mask_text = f"(1, 1, 1, {n_k}): keys 0-4 are padding"
            call = _call_text(q, k, v, MEMORY_BLOCK, extra.get("causal", False), extra.get("mask"), mask_text)
            got, figures = kata.flash_attention.measuring(q, k, v, block_size=MEMORY_BLOCK, **extra)
            try:
                got = one_array(got, call)
                # the last TAIL queries, whose keys (causal: aligned bottom-right) are the same alone: a cheaper answer
                tail = q[..., -TAIL:, :]
                want = ref.flash_attention(tail, k, v, MEMORY_BLOCK, **extra)
                _compare(got[..., -TAIL:, :] if got.shape[:-1] == q.shape[:-1] else got, want, call, tail, k, v,
                         MEMORY_BLOCK, **extra, kata=kata, exercise=f"{q.shape[-2]} queries (the last {TAIL} compared) and n_k = "
                         f"{n_k} keys in blocks of {MEMORY_BLOCK}")
            except Failure as failure:  # a values mistake, told as one: memory is judged only on right numbers
                raise Failure(f"values wrong, memory not judged: {failure.message}", failure.bug, exact=failure.exact,
                              nonfinite=failure.nonfinite) from None
        peak = figures["peak_bytes"]
        if peak > TABLE_SHARE * table:
            raise Failure(f"{call} held {_mib(peak)} at its peak (the kernel's count of the whole process, from "
                          f"before the file loaded): {peak / table:.1f} bytes for each (query, key) pair, so an "
                          f"(n_q, n_k) table was built (scores, weights or a mask: even bools take {_mib(table)}); "
                          "right numbers, but flash attention holds one (n_q, block_size) block at a time",
                          "materializes-scores", exact=True)


# --- inputs are never changed --------------------------------------------------------------------------

@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    for dtype in (np.float64, np.float32):  # a no-copy np.asarray keeps the caller's array for some dtypes only
        q, k, v = (x.astype(dtype) for x in _inputs(rng, (2,), 3, 7, 4, 3, levels=_levels(3, 0, 5, 2, n_k=7)))
        mask = np.ones((2, 1, 7), bool)
        mask[1, :, :3] = False
        args = (q, k, v, 3, True, mask)
        _, after = kata.flash_attention.keeping_args(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        for name, before, now in zip(API["flash_attention"], args, after):
            if isinstance(before, np.ndarray) and not np.array_equal(before, np.asarray(now)):
                change = f" ({changed(before, np.asarray(now))})" if np.shape(now) == before.shape else ""
                raise Failure(f"{_call_text(q, k, v, 3, True, mask)} changed its argument {name}{change}: work on "
                              "new arrays, never the caller's", "mutates-input", exact=True)

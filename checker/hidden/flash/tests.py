"""Hidden tests for kata 08: flash_attention(q, k, v, block_size=64, causal=False, mask=None).

The right answer is plain attention, softmax(q . k^T / sqrt(d), masked) @ v, computed here. The online
softmax's bugs hide on ordinary inputs (a missing rescale is off by 1e-7 when scores are small), so the
inputs are built to show them: one channel of every key carries a level chosen per block, so the running
max grows, shrinks, or falls by hundreds from one block to the next; block sizes that do not divide n_k,
of 1 and beyond n_k; causal with n_q != n_k; left padding covering the whole first block; queries with
no visible key; scores near -1000. Memory is part of the contract: the peak allocation of one call, as
n_k grows with n_q and block_size fixed, tells an (n_q, n_k) table apart from blocks (no stopwatch).
"""

import numpy as np

from checker.hidden.flash.variants import VARIANTS, allowed_table
from checker.testkit import Failure, Suspects, bug, call_text, changed, close, expect_precision, one_array, tolerance

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
    got = one_array(kata.flash_attention(q, k, v, block_size=block_size, **extra), call)
    q64, k64, v64 = (np.asarray(x, np.float64) for x in (q, k, v))
    return got, ref.flash_attention(q64, k64, v64, block_size=block_size, causal=causal, mask=mask), call


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


def _compare(got, want, call, q, k, v, block_size, causal=False, mask=None, why="", variants=VARIANTS):
    """Fail unless the output matches; name the bug whose output it equals (among `variants`), or by what
    the rows show."""
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
    matched = Suspects(variants, q64, k64, v64, block_size, causal, mask).match(got, want, rtol, atol) or \
        _empty_rows_bug(got, want, allowed_table(q64, k64, causal, mask), rtol, atol)
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True, nonfinite=nonfinite)
    raise Failure(f"{detail}: {why or RIGHT}", nonfinite=nonfinite)


def _empty_rows_bug(got, want, allowed, rtol, atol):
    """full-row-nan when only the queries with no visible key are wrong, and they are NaN."""
    wrong = ~close(got, want, rtol, atol).all(axis=-1)  # (..., n_q)
    empty = ~allowed.any(axis=-1)
    if wrong.any() and not (wrong & ~empty).any() and np.isnan(got[wrong]).all():
        return "full-row-nan", "a query with no visible key got 0 / 0 = NaN: give it a zero output"
    return None


def _check(kata, ref, q, k, v, block_size, causal=False, mask=None, mask_text=None, why="", variants=VARIANTS):
    got, want, call = _run(kata, ref, q, k, v, block_size, causal, mask, mask_text)
    _compare(got, want, call, q, k, v, block_size, causal, mask, why, variants)


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
    _check(kata, ref, q, k, v, 3, why="when a block raises the max, l and o are multiplied by exp(m_old - m_new)")


@bug("online-max-reset")
def test_running_max_falls(kata, ref, rng):
    # queries 0-2 score about 800 in the first block and about 0 after it; queries 3-5 barely see the levels
    q, k, v = _inputs(rng, (2,), 6, 8, 4, 3, levels=_levels(4, 800, 0), reach=[1, 1, 1, 0.01, 0.01, 0.01])
    _check(kata, ref, q, k, v, 4, why="a block whose max is below the running max is measured against the "
           "running max: keep m = max(m_old, block max)")


@bug("drops-last-block")
def test_last_block_shorter(kata, ref, rng):
    for n_k, block_size in ((11, 4), (7, 5)):  # the largest scores sit in the last, shorter block
        q, k, v = _inputs(rng, (2, 2), 3, n_k, 4, 5, levels=np.linspace(0, 6, n_k))
        _check(kata, ref, q, k, v, block_size, why="the last block holds the n_k % block_size keys left over")


@bug("drops-last-block")
def test_any_block_size(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 4, 9, 3, 5, levels=np.linspace(0, 6, 9) * rng.permutation([1, -1] * 4 + [1]))
    for block_size in (1, 9):  # one key a block, one block of all keys
        _check(kata, ref, q, k, v, block_size, why="any block_size >= 1 gives the same numbers")
    # Right with those, wrong with one block longer than n_k: only a loop over whole blocks does that (a
    # rescale inverted gives the same zeros here, but it would have failed with one key a block).
    _check(kata, ref, q, k, v, 16, why="a block_size beyond n_k is one short block of every key",
           variants=[suspect for suspect in VARIANTS if suspect.variant_of == "drops-last-block"])


@bug("mask-top-left")
def test_causal_bottom_right(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 4, 10, 4, 3, levels=_levels(3, 0, 5, 2, 7, n_k=10))
    _check(kata, ref, q, k, v, 3, causal=True, why="causal: query i sees keys j <= n_k - n_q + i (the queries "
           "are the LAST n_q positions)")


@bug("masked-block-nan")
def test_left_padding(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 3, 10, 4, 3, levels=np.linspace(0, 4, 10))
    mask = np.ones((2, 1, 1, 10), bool)
    mask[1, ..., :5] = False  # example 1 is left-padded: its first block of 3 keys is all masked
    _check(kata, ref, q, k, v, 3, mask=mask, mask_text="(2, 1, 1, 10): example 1's keys 0-4 are padding",
           why="a block whose keys are all masked for a query changes nothing for it")


@bug("full-row-nan")
def test_no_visible_key(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 7, 5, 4, 3, levels=np.linspace(0, 4, 5))
    _check(kata, ref, q, k, v, 2, causal=True, why="with n_q > n_k the first n_q - n_k queries see no key and "
           "get a zero output")
    mask = np.ones((2, 1, 1, 5), bool)
    mask[1] = False  # example 1: every key is padding
    _check(kata, ref, q, k, v, 2, mask=mask, mask_text="(2, 1, 1, 5): every key of example 1 is padding",
           why="a query with no visible key gets a zero output")


@bug("mask-after-softmax")
def test_mask_and_causal(kata, ref, rng):
    q, k, v = _inputs(rng, (2, 2), 4, 9, 4, 3, levels=_levels(4, 3, 0, 6, n_k=9))
    mask = rng.random((2, 1, 4, 9)) < 0.6
    mask[..., -1] = True  # every query keeps its own (last visible) key
    mask[..., :4] &= rng.random((2, 1, 4, 4)) < 0.3  # the high-scoring first block mostly masked
    _check(kata, ref, q, k, v, 4, causal=True, mask=mask, why="the mask and the causal triangle both apply, "
           "before the max and the exponentials")
    _check(kata, ref, q, k, v, 4, mask=mask[0, 0], why="a (n_q, n_k) mask applies to every example and head")


@bug("max-floor-zero")
def test_scores_far_below_zero(kata, ref, rng):
    # queries 0-2 score about -1000 against every key: exp(score - 0) underflows
    q, k, v = _inputs(rng, (2,), 5, 8, 4, 3, levels=np.linspace(1000, 1004, 8), reach=[-1, -1, -1, 0.002, 0.002])
    _check(kata, ref, q, k, v, 4, why="a softmax does not care how far below 0 the scores are")


@bug("fill-too-shallow")
def test_mask_wins_below_any_fill(kata, ref, rng):
    # queries 0-1 score about -20000, query 2 about -1000; example 1 has padding: a finite fill of -1e4
    # sits above the real scores of queries 0-1 (a running max started at 0 fails query 2 as well)
    q, k, v = _inputs(rng, (2,), 3, 8, 4, 3, levels=np.linspace(2e4, 2e4 + 4, 8), reach=[-1, -1, -0.05])
    mask = np.ones((2, 1, 8), bool)
    mask[1, :, :3] = False
    _check(kata, ref, q, k, v, 4, mask=mask, mask_text="(2, 1, 8): example 1's keys 0-2 are padding",
           why="the mask wins whatever the scores are, even far below any finite fill")


def test_default_block_size(kata, ref, rng):
    q, k, v = _inputs(rng, (1, 2), 3, 150, 4, 3, levels=np.linspace(0, 8, 150))
    call = call_text("flash_attention", q=q, k=k, v=v)
    got = one_array(kata.flash_attention(q, k, v), call)
    _compare(got, ref.flash_attention(q, k, v), call, q, k, v, 64)


def test_float32(kata, ref, rng):
    q, k, v = (x.astype(np.float32) for x in _inputs(rng, (2, 2), 5, 11, 4, 3, levels=_levels(3, 0, 6, 3, 9, n_k=11)))
    mask = np.ones((2, 1, 1, 11), bool)
    mask[0, ..., :4] = False
    got, want, call = _run(kata, ref, q, k, v, 3, True, mask, "(2, 1, 1, 11): example 0's keys 0-3 are padding")
    if got.dtype.kind != "f":
        raise Failure(f"{call} returned dtype {got.dtype}, expected floating point")
    _compare(got, want, call, q, k, v, 3, True, mask)


# --- memory: nothing of size n_q * n_k ------------------------------------------------------------------

MEMORY_QUERIES, MEMORY_BLOCK, MEMORY_KEYS = 256, 32, (256, 2048)
# Bytes of peak memory per key added, per query: an (n_q, n_k) table of float64 adds 8, of float32 4, of
# float16 2; copies and casts of k and v (d = d_v = 2) add under 0.2. A bool table (1 byte: a mask built
# whole) is left alone, as the caller's mask would be.
TABLE_BYTES = 1.5


def _peak_bytes(kata, q, k, v, block_size):
    """(output, the most memory the call held at once). The one place a figure comes from the sandbox:
    today tracemalloc in the learner's process (Sandbox.measure)."""
    got, work = kata.flash_attention.measuring(q, k, v, block_size=block_size)
    return got, work["peak_bytes"]


def _mib(size):
    return f"{size / 2**20:.2f} MiB"


@bug("materializes-scores")
def test_memory_grows_with_blocks_not_table(kata, ref, rng):
    peaks = []
    for n_k in MEMORY_KEYS:
        q, k, v = _inputs(rng, (1, 1), MEMORY_QUERIES, n_k, 2, 2)
        got, peak = _peak_bytes(kata, q, k, v, MEMORY_BLOCK)
        call = _call_text(q, k, v, MEMORY_BLOCK)
        _compare(one_array(got, call), ref.flash_attention(q, k, v, MEMORY_BLOCK), call, q, k, v, MEMORY_BLOCK)
        peaks.append(peak)
    short, long = MEMORY_KEYS
    per_cell = (peaks[1] - peaks[0]) / ((long - short) * MEMORY_QUERIES)
    if per_cell > TABLE_BYTES:
        raise Failure(f"flash_attention(q (1, 1, {MEMORY_QUERIES}, 2), k and v (1, 1, n_k, 2), "
                      f"block_size={MEMORY_BLOCK}) held {_mib(peaks[1])} at its peak with n_k = {long}, "
                      f"{_mib(peaks[0])} with n_k = {short}: {per_cell:.1f} bytes more for each (query, key) "
                      f"pair, so an (n_q, n_k) table was built (scores or weights); right numbers, but flash "
                      f"attention holds one (n_q, block_size) block at a time", "materializes-scores", exact=True)


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

"""Hidden tests for kata 10: the planted decoder, fixed, must meet kata 05's contract.

No test names a bug: the kata is to find them. The first test counts the planted bugs that remain, from
what the file computes: the decoder with every subset of the planted bugs is run here on the same probe
calls, and the subset whose answers the learner's file reproduces is what remains (see `probes.py`).
The other tests hold the file to kata 05's contract against kata 04's reference, with messages that say
where the numbers differ and never why.
"""

from functools import lru_cache

import numpy as np

from checker.engine import catalog
from checker.hidden.debug import nearest, plants, probes
from checker.hidden.debug.probes import float32_tolerance
from checker.sandbox import LearnerError
from checker.engine.testkit import weight
from checker.engine.testkit import Failure, close, one_array, show

API = {"KVCache": (), "cached_attention": ("x", "cache", "w_q", "w_k", "w_v", "w_o", "n_heads")}
STUB_PLANTED = True  # the stub is a working file with bugs in it, not a NotImplementedError


@lru_cache(maxsize=None)
def _full_attention():
    """Kata 04's reference multi_head_attention: the ground truth, run here in the checker."""
    return catalog.find("multi-head").reference().multi_head_attention


@weight(4)
def test_planted_bugs_fixed(kata, seed):
    from checker.engine.runner import DEFAULT_SEED

    planted = plants.planted(seed, DEFAULT_SEED)
    labels = []
    got = probes.answers(kata, labels)
    remaining = probes.remaining(kata, planted, got)
    if remaining is None:
        parted = probes.first_divergence(kata, planted)
        where = ""
        if parted:
            call, number, total, agreeing = parted
            before = f"; {', '.join(agreeing)} agree before it" if agreeing else ""
            where = f". The first answer no mix gives: {call} (probe {number} of {total}{before})"
        raise Failure(f"of the {len(planted)} planted bugs, the checker cannot tell how many remain: the file "
                      "computes what no mix of them computes (a fix that changed something else too, or a bug "
                      f"fixed halfway){where}", details={"planted": list(planted), "remaining": None,
                                                           "site": nearest.site(got, labels, planted)})
    if remaining:
        raise Failure(f"{len(remaining)} of {len(planted)} planted bugs remain",
                      details={"planted": list(planted), "remaining": remaining})


# --- feeding a sequence through the learner's cache ------------------------------------------------------

def _inputs(rng, b, n, d_model, spread=1.0):
    """x and four weights, scaled so each score has a spread near `spread`."""
    x = rng.normal(size=(b, n, d_model))
    weights = tuple(rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4))
    return x * np.sqrt(spread), weights


def _describe(chunks, x, n_heads):
    b, _, d_model = x.shape
    dtype = "" if x.dtype == np.float64 else f" {x.dtype}"
    return f"cached_attention over calls of {', '.join(map(str, chunks))} tokens (b={b}, d_model={d_model}{dtype}, " \
           f"n_heads={n_heads})"


def _feed(kata, x, weights, n_heads, chunks, cache=None):
    """The learner's outputs joined along positions; len(cache) is checked after every call."""
    cache = kata.KVCache() if cache is None else cache
    outputs, start = [], 0
    for index, t in enumerate(chunks):
        call = f"call {index + 1} of {_describe(chunks, x, n_heads)}"
        got = one_array(kata.cached_attention(x[:, start:start + t], cache, *weights, n_heads), call)
        if got.shape != (x.shape[0], t, x.shape[2]):
            raise Failure(f"{call} returned shape {got.shape}, expected {(x.shape[0], t, x.shape[2])}")
        start += t
        length = len(cache)
        if length != start:
            raise Failure(f"after {call}, len(cache) is {show(length)}, expected {start}")
        outputs.append(got)
    return np.concatenate(outputs, axis=1)  # (b, N, d_model)


def _compare(got, x, weights, n_heads, chunks):
    want = _full_attention()(np.asarray(x, np.float64), *(np.asarray(w, np.float64) for w in weights),
                             n_heads, causal=True)
    rtol, atol = float32_tolerance(got, x, *weights)
    bad = ~close(got, want, rtol, atol)
    if bad.any():
        example, position, channel = (int(i) for i in np.argwhere(bad)[0])
        call = int(np.searchsorted(np.cumsum(chunks), position, side="right")) + 1
        raise Failure(f"{_describe(chunks, x, n_heads)}: call {call} returned wrong values at position {position}, "
                      f"example {example}, channel {channel}: got {got[example, position, channel]:.6g}, expected "
                      f"{want[example, position, channel]:.6g}")  # no NaN trace: it would point at the bug


def _check(kata, rng, chunks, b=2, n_heads=2, d_head=3, spread=1.0, dtype=np.float64):
    x, weights = _inputs(rng, b, sum(chunks), n_heads * d_head, spread)
    x, weights = x.astype(dtype), tuple(w.astype(dtype) for w in weights)
    _compare(_feed(kata, x, weights, n_heads, chunks), x, weights, n_heads, chunks)


# --- kata 05's contract ------------------------------------------------------------------------------------

def test_one_prefill(kata, rng):
    _check(kata, rng, (6,))


def test_prefill_then_single_steps(kata, rng):
    _check(kata, rng, (4, 1, 1, 1), b=3, n_heads=2, d_head=4)


def test_chunks_of_any_size(kata, rng):
    _check(kata, rng, (3, 2, 1, 4), b=2, n_heads=3, d_head=2)


def test_large_scores(kata, rng):
    _check(kata, rng, (5, 1, 2), spread=2000.0)


def test_long_cache(kata, rng):
    _check(kata, rng, (8,) * 10, b=2, n_heads=2, d_head=2)


def test_float32(kata, rng):
    _check(kata, rng, (3, 1, 2), dtype=np.float32)


def test_two_caches_in_turns(kata, rng):
    chunks = (3, 1, 2)
    (x, weights), (other, _) = _inputs(rng, 2, 6, 6), _inputs(rng, 2, 6, 6)
    mine, theirs = kata.KVCache(), kata.KVCache()
    got, start = [], 0
    for t in chunks:
        got.append(one_array(kata.cached_attention(x[:, start:start + t], mine, *weights, 2), "cached_attention"))
        kata.cached_attention(other[:, start:start + t], theirs, *weights, 2)
        start += t
    try:
        _compare(np.concatenate(got, axis=1), x, weights, 2, chunks)
    except Failure as failure:
        raise Failure(f"two caches fed in turns: {failure.message}") from None


def test_inputs_unchanged(kata, rng):
    x, weights = _inputs(rng, 2, 4, 6)
    cache = kata.KVCache()
    args = (x, cache, *weights, 2)
    try:
        _, after = kata.cached_attention.keeping_args(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    except LearnerError:
        return  # a crash is for the other tests to report
    for name, before, now in zip(("x", "cache", "w_q", "w_k", "w_v", "w_o"), args, after):
        if isinstance(before, np.ndarray) and not np.array_equal(before, np.asarray(now)):
            raise Failure(f"cached_attention(x {x.shape}, cache, w_q, w_k, w_v, w_o, n_heads=2) changed its argument "
                          f"{name}: work on new arrays, never the caller's")

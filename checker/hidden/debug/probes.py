"""How many planted bugs remain, read from what a file computes.

The same probe calls go to the learner's file (in the sandbox) and, here in the checker, to the clean
decoder with each subset of the planted bugs. The subset whose answers the learner's file gives is what
remains: a bug fixed in any style no longer shows, and a bug still there shows however the rest was
fixed. Plants of different sites change the probes' answers in different ways (tests/test_debug_kata.py
proves it for every pair and for sampled fours), so one subset, at most, matches.
"""

import itertools
from functools import lru_cache

import numpy as np

from checker.hidden.debug import plants
from checker.sandbox import SandboxError
from checker.engine.testkit import close, tolerance

PROBE_SEED = 10
RAISED, MISSING = "raised", "missing"  # a probe that raised; a helper the file no longer has (matches anything)


def _ask(call):
    """One probe's answer: what it returned, RAISED, or MISSING when a helper was renamed or removed."""
    try:
        return call()
    except SandboxError:  # timed out or died: nothing more can be asked
        raise
    except Exception as error:  # noqa: BLE001 - any raise is an answer
        missing = getattr(error, "type", type(error).__name__) == "AttributeError" and "has no attribute" in str(error)
        return MISSING if missing else RAISED


def answers(decoder, labels=None):
    """The answers of `decoder` (the learner's module as tests see it, or a planted module) to every probe,
    in one fixed order: a shared cache carries its state from one probe to the next, in both. `labels`, a
    list, gets each answer's function in the same order (for messages)."""
    named = _answers(decoder)
    if labels is not None:
        labels += [name for name, _ in named]
    return [answer for _, answer in named]


def _answers(decoder):
    """(the function asked, its answer) for every probe, in answers()'s order."""
    rng = np.random.default_rng(PROBE_SEED)
    found = [
        ("softmax", _ask(lambda: decoder.softmax(rng.normal(size=(2, 3, 3))))),
        ("softmax", _ask(lambda: decoder.softmax(np.array([[800.0, 0.0, -3.0]])))),
        ("causal_mask", _ask(lambda: decoder.causal_mask(2, 5))),
        ("split_heads", _ask(lambda: decoder.split_heads(rng.normal(size=(2, 3, 8)), 2))),
        ("merge_heads", _ask(lambda: decoder.merge_heads(rng.normal(size=(2, 2, 3, 4))))),
    ]
    found += _decode_answers(decoder, rng, chunks=(2,), spread=1.0)  # b = h = t = n: a missing keepdims runs
    found += _cache_answers(decoder, rng)  # after: a cache that shares its storage is still empty above
    found += _decode_answers(decoder, rng, chunks=(3, 1, 2), spread=1.0)
    found += _decode_answers(decoder, rng, chunks=(3, 1), spread=2000.0)
    return found


B, HEADS, D_HEAD = 2, 2, 3  # every probe's cache holds (B, HEADS, n, D_HEAD): a shared one still runs


def _cache_answers(decoder, rng):
    chunks = [(rng.normal(size=(B, HEADS, t, D_HEAD)), rng.normal(size=(B, HEADS, t, D_HEAD))) for t in (3, 1)]
    cache = _ask(decoder.KVCache)
    if isinstance(cache, str):
        return [("KVCache()", cache)]
    found = [("KVCache.append", _ask(lambda k=k, v=v: cache.append(k, v))) for k, v in chunks]
    found.append(("len(cache)", _ask(lambda: len(cache))))
    other = _ask(decoder.KVCache)
    found.append(("KVCache()", other) if isinstance(other, str) else ("a second cache's len", _ask(lambda: len(other))))
    return found


def _decode_answers(decoder, rng, chunks, spread):
    n_heads, d_model = HEADS, HEADS * D_HEAD
    x = rng.normal(size=(B, sum(chunks), d_model)) * np.sqrt(spread)
    weights = [rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4)]
    cache = _ask(decoder.KVCache)
    if isinstance(cache, str):
        return [("KVCache()", cache)]
    found, start = [], 0
    for t in chunks:
        found.append((f"cached_attention of {t} new token{'s' if t > 1 else ''}",
                      _ask(lambda start=start, t=t: decoder.cached_attention(x[:, start:start + t], cache, *weights,
                                                                             n_heads))))
        start += t
    return found


# --- matching ----------------------------------------------------------------------------------------------

def same(got, want):
    """Whether two answers agree: MISSING matches anything; arrays to the float tolerance, NaN with NaN."""
    if MISSING in (_text(got), _text(want)):
        return True
    if isinstance(got, str) or isinstance(want, str):
        return _text(got) == _text(want)
    if isinstance(want, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(want) and all(map(same, got, want))
    try:
        got, want = np.asarray(got), np.asarray(want)
    except Exception:  # noqa: BLE001 - not an array at all
        return False
    if got.shape != want.shape or got.dtype.kind not in "biuf":
        return False
    return bool(close(got, want, *float32_tolerance(got, want)).all())


def float32_tolerance(*arrays):
    """The tolerance of float32 arithmetic, which the contract accepts anywhere inside, whatever the result's dtype."""
    return tolerance(*(np.asarray(a, np.float32) for a in arrays if isinstance(a, np.ndarray)))


def _text(answer):
    return answer if isinstance(answer, str) else None


@lru_cache(maxsize=None)
def planted_answers(bugs):
    """The answers of the clean decoder with `bugs` (a sorted tuple) planted: our own code, run here."""
    with np.errstate(all="ignore"):
        return answers(plants.module_with(bugs))


def first_divergence(learner, planted):
    """For a file whose answers are no mix of the planted bugs: the call whose answer first departs from the mix
    that explains the most probes before it, as (call, its probe number, probes in all, the functions whose
    answers agreed before it), or None."""
    labels = []
    got = answers(learner, labels)
    latest = None
    for size in range(len(planted) + 1):
        for subset in itertools.combinations(sorted(planted), size):
            want = planted_answers(subset)
            at = next((i for i, (g, w) in enumerate(zip(got, want)) if not same(g, w)), None)
            if at is not None and (latest is None or at > latest):
                latest = at
    if latest is None or latest >= len(labels):
        return None
    agreeing = list(dict.fromkeys(label.split(" of ")[0] for label in labels[:latest]))
    return labels[latest], latest + 1, len(labels), agreeing


def remaining(learner, planted, got=None):
    """The planted bugs the learner's file still carries (a list, maybe empty), or None when its answers are
    those of no subset of them. `got`: the file's answers, when they were asked already."""
    got = answers(learner) if got is None else got
    for size in range(len(planted) + 1):
        for subset in itertools.combinations(sorted(planted), size):
            if all(map(same, got, planted_answers(subset))):
                return list(subset)
    return None

"""Running the learner's RollingKVCache for kata 13's checks: len() as a count, a new cache empty, and kept()
after a list of appends against the last window positions, a wrong answer named by the kept() variants."""

import numpy as np

from checker.engine.proxy import LearnerObject
from checker.engine.testkit import Failure, Suspects, as_pair, close, first_difference, show, tolerance
from checker.hidden.sliding_window.shape_variants import KEPT_RIVALS, KEPT_VARIANTS, kept_expected
from checker.sandbox import LearnerError


def positions_of(cache, what):
    got = LearnerObject.__len__(cache)
    if isinstance(got, np.ndarray) and got.ndim == 0 and got.dtype.kind in "iu":
        got = int(got)
    if not isinstance(got, int) or isinstance(got, bool) or got < 0:
        raise Failure(f"len({what}) returned {show(got)}, expected the number of positions ever appended")
    return got


def new_cache(kata, window):
    cache = kata.RollingKVCache(window)
    count = positions_of(cache, f"RollingKVCache({window})")
    if count:
        raise Failure(f"len(RollingKVCache({window})) is {count}, expected 0: a new cache is empty (does it hold "
                      "positions another cache appended?)")
    return cache


def check_kept(kata, rng, b, h, d, window, chunks):
    """Append chunks; after each, len(cache) counts every position and kept() holds the last window, oldest first."""
    cache = new_cache(kata, window)
    appended = []
    for index, t in enumerate(chunks):
        k, v = rng.normal(size=(b, h, t, d)), rng.normal(size=(b, h, t, d))
        cache.append(k, v)
        appended.append((k, v))
        total = sum(chunks[:index + 1])
        so_far = " + ".join(str(c) for c in chunks[:index + 1])
        count = positions_of(cache, "cache")
        if count != total:
            raise Failure(f"RollingKVCache({window}): len(cache) is {count} after appending {so_far} positions, "
                          f"expected {total}: len counts every position ever appended, the dropped ones too")
        call = f"RollingKVCache({window}).kept() after appending {so_far} positions (b={b}, h={h}, d={d})"
        got_k, got_v = (np.asarray(x, np.float64) for x in as_pair(cache.kept(), call, ("k", "v")))
        want = np.stack(kept_expected(appended, window))
        got = np.stack([got_k, got_v]) if got_k.shape == got_v.shape else None
        if got is not None and got.shape == want.shape and close(got, want, *tolerance(got, want)).all():
            continue
        detail = (f"returned shapes {got_k.shape} and {got_v.shape}, expected {want.shape[1:]} each"
                  if got is None or got.shape != want.shape
                  else f"returned wrong values {first_difference(got, want, *tolerance(got, want))}")
        matched = Suspects(KEPT_VARIANTS, appended, window, rivals=KEPT_RIVALS).match(
            got, want, *tolerance(want)) if got is not None else None
        if matched:
            raise Failure(f"{call} {detail}: {matched[1]}", matched[0], exact=True)
        raise Failure(f"{call} {detail}: the last min(len, window) = {want.shape[3]} positions, oldest first, "
                      "(b, h, m, d) each")


def check_kept_stays(kata, rng, b, h, d, window, chunks):
    """kept() hands back new arrays: each result, kept in the learner's process, reads the same after every
    later append (a view into the ring buffer, written by the next append, does not)."""
    cache = new_cache(kata, window)
    results = []
    for index, t in enumerate(chunks):
        so_far = " + ".join(str(c) for c in chunks[:index + 1])
        cache.append(rng.normal(size=(b, h, t, d)), rng.normal(size=(b, h, t, d)))
        for text, before, again in results:
            after = as_pair(again(), text, ("k", "v"))
            for name, was, now in zip("kv", before, after):
                now = np.asarray(now)
                if now.shape == was.shape and close(now, was, 0, 0).all():
                    continue
                where = (f"at {[int(i) for i in np.argwhere(~close(now, was, 0, 0))[0]]}"
                         if now.shape == was.shape else f"from shape {was.shape} to {now.shape}")
                raise Failure(f"the {name} that {text} returned changed {where} when the cache then held {so_far} "
                              "positions: kept() returns new arrays, never views into the ring buffer that a "
                              "later append writes into")
        text = f"RollingKVCache({window}).kept() after appending {so_far} positions (b={b}, h={h}, d={d})"
        result, again = cache.kept.keeping_result()
        results.append((text, [np.array(x) for x in as_pair(result, text, ("k", "v"))], again))


def check_first_append_alone(kata, rng):
    """A new cache takes any shape at its first append, whatever another cache of its window was fed: when a
    new RollingKVCache(11) refuses a first append that a new RollingKVCache(13) takes, only after another
    RollingKVCache(11) was fed other shapes, the caches of one window share their storage."""
    fed, other = (2, 2, 2, 4), (1, 3, 2, 5)
    try:
        kata.RollingKVCache(11).append(rng.normal(size=fed), rng.normal(size=fed))
        kata.RollingKVCache(13).append(rng.normal(size=other), rng.normal(size=other))
    except LearnerError as error:
        if error.not_implemented:
            raise
        return  # a first append refused on its own: the other tests say why
    try:
        kata.RollingKVCache(11).append(rng.normal(size=other), rng.normal(size=other))
    except LearnerError as error:
        if error.not_implemented:
            raise
        raise Failure(f"a new RollingKVCache(11) refused its first append of {other} ({error}), which a new "
                      f"RollingKVCache(13) takes, after another RollingKVCache(11) was fed {fed}: the caches of "
                      "one window share their storage (a class attribute or a mutable default keyed by window)",
                      "shared-cache-state", exact=True) from None

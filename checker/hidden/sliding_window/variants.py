"""A sequence fed to a rolling cache in calls, and what code carrying each catalogued bug of kata 13 outputs
for it, to recognise the bug by its output.

Every call is replayed on absolute positions: which positions the cache kept before it, which keys its
queries met (the kept ones and the new ones, or the cache after the append), and which of those the band let
each query see. A variant swaps one of those three steps, or the softmax, for a buggy one. Rivals are
mistakes outside the catalogue that look like a catalogued one on some inputs: where one of them explains an
output as well, no name is given.
"""

from dataclasses import dataclass

import numpy as np

from checker.engine.testkit import variant, variants_in


@dataclass(frozen=True)
class Plan:
    """One sequence, q, k (b, h, N, d) and v (b, h, N, d_v), fed to RollingKVCache(window): `seeded`
    positions put in with cache.append, then one window_attention call per entry of `chunks`."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    window: int
    chunks: tuple
    seeded: int = 0

    def starts(self):
        """(first position, t) of each call."""
        start = self.seeded
        for t in self.chunks:
            yield start, t
            start += t

    @property
    def end(self):
        return self.seeded + sum(self.chunks)

    def as_float64(self):
        q, k, v = (np.asarray(x, np.float64) for x in (self.q, self.k, self.v))
        return Plan(q, k, v, self.window, self.chunks, self.seeded)

    def describe(self):
        b, h, _, d = self.q.shape
        dtype = "" if self.q.dtype == np.float64 else f" {self.q.dtype}"
        seeded = f"after cache.append of {self.seeded} positions, " if self.seeded else ""
        if set(self.chunks) == {1}:
            calls = f"{len(self.chunks)} single steps"
        elif len(self.chunks) > 1 and set(self.chunks[1:]) == {1}:
            calls = f"a prefill of {self.chunks[0]} then {len(self.chunks) - 1} single steps"
        elif len(self.chunks) == 1:
            calls = f"one call of {self.chunks[0]} tokens"
        else:
            calls = f"calls of {', '.join(str(t) for t in self.chunks)} tokens"
        return (f"window_attention {seeded}{calls} (window={self.window}, b={b}, h={h}, d={d}, "
                f"d_v={self.v.shape[-1]}{dtype})")


def band(n_q, n_k, window):
    """The right mask, bottom-right: query i at position n_k - n_q + i sees keys 0 <= pos - j < window."""
    lag = np.arange(n_k - n_q, n_k)[:, None] - np.arange(n_k)[None, :]  # (n_q, n_k)
    return (lag >= 0) & (lag < window)


# --- the steps of one call, on absolute positions -----------------------------------------------------------

def _last(positions, count):
    return positions[max(len(positions) - count, 0):]


def kept_right(appended, window):
    """The last `window` of every position appended so far."""
    return _last([p for chunk in appended for p in chunk], window)


def kept_last_chunk(appended, window):
    """What a cache that replaces its storage at each append keeps: the last chunk (its last window)."""
    return _last(list(appended[-1]), window) if appended else []


def kept_all(appended, window):
    return [p for chunk in appended for p in chunk]


def lag_band(window, low=0, high=None, two_sided=False):
    """visible(query positions (t, 1), key positions (1, m), local (t, m) pair) for a band on absolute lags."""
    high = window if high is None else high

    def visible(pq, pk, local):
        lag = pq - pk
        return (np.abs(lag) < high) if two_sided else (lag >= low) & (lag < high)

    return visible


def _replay(plan, kept=kept_right, meets="kept+new", visible=None, divisor=None, after_softmax=False, shift=True):
    """The outputs (b, h, sum(chunks), d_v) of the plan's calls, one step swapped for a buggy one.

    meets: "kept+new" (right), "after-append" (the cache after appending the chunk), "kept" (before it, no new
    key), "new" (this call's keys only). visible(pq, pk, local) -> bool (t, m); `local` is (query index in the chunk, key index among those met).
    """
    plan = plan.as_float64()
    q, k, v, window = plan.q, plan.k, plan.v, plan.window
    visible = lag_band(window) if visible is None else visible
    d = q.shape[-1]
    appended = [tuple(range(plan.seeded))] if plan.seeded else []
    outputs = []
    for start, t in plan.starts():
        new = list(range(start, start + t))
        before = kept(appended, window)
        appended.append(tuple(new))
        met = {"kept+new": before + new, "after-append": kept(appended, window), "kept": before, "new": new}[meets]
        met = np.array(met, dtype=int)
        pq = np.array(new)[:, None]  # (t, 1)
        pk = met[None, :]  # (1, m)
        local = (np.arange(t)[:, None], np.arange(len(met))[None, :])
        allowed = np.broadcast_to(visible(pq, pk, local), (t, len(met)))
        scores = q[:, :, start:start + t] @ np.swapaxes(k[:, :, met], -1, -2)  # (b, h, t, m)
        scores = scores / (np.sqrt(d) if divisor is None else divisor)
        outputs.append(_softmax(scores, allowed, after_softmax, shift) @ v[:, :, met])  # (b, h, t, d_v)
    return np.concatenate(outputs, axis=2)


def _softmax(scores, allowed, after_softmax=False, shift=True):
    """Masked softmax over the keys met; a query that sees no key gets NaN (what a -inf fill gives)."""
    with np.errstate(all="ignore"):
        if after_softmax:
            e = np.exp(scores - scores.max(axis=-1, keepdims=True, initial=-np.inf))
            return np.where(allowed, e / e.sum(axis=-1, keepdims=True), 0.0)
        filled = np.where(allowed, scores, -np.inf)
        peak = filled.max(axis=-1, keepdims=True, initial=-np.inf) if shift else 0.0
        e = np.exp(filled - peak)
        return e / e.sum(axis=-1, keepdims=True)


def expected(plan):
    """The right answer: attention over the whole sequence under the band, the rows of the calls' queries."""
    plan = plan.as_float64()
    end = plan.end
    q, k, v = plan.q[:, :, :end], plan.k[:, :, :end], plan.v[:, :, :end]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # (b, h, N, N)
    return (_softmax(scores, band(end, end, plan.window)) @ v)[:, :, plan.seeded:]


def weights_of(plan, replay_args=None):
    """The right weights (b, h, T, N) of the calls' queries over every position, for a picture."""
    plan = plan.as_float64()
    end = plan.end
    scores = plan.q[:, :, :end] @ np.swapaxes(plan.k[:, :, :end], -1, -2) / np.sqrt(plan.q.shape[-1])
    return _softmax(scores, band(end, end, plan.window))[:, :, plan.seeded:]


# --- window_attention: what each catalogued bug outputs -----------------------------------------------------

@variant("window-off-by-one", of="attention")
def _one_too_many(plan):
    """each query saw window + 1 keys (0 <= pos - j <= window): the band is the query's own position and
    the window - 1 before it, 0 <= pos - j < window"""
    return _replay(plan, visible=lag_band(plan.window, high=plan.window + 1))


@variant("window-off-by-one", of="attention")
def _one_too_few(plan):
    """each query saw window - 1 keys (pos - j < window - 1): the band holds window positions, the query's
    own included, 0 <= pos - j < window"""
    if plan.window < 2:
        raise ValueError("window 1 leaves no key at all: another bug")
    return _replay(plan, visible=lag_band(plan.window, high=plan.window - 1))


@variant("window-no-causal", of="attention")
def _two_sided(plan):
    """a query saw the later keys of its chunk (|pos - j| < window): the band bounds only the past; keys
    after the query stay blocked, 0 <= pos - j < window"""
    return _replay(plan, visible=lag_band(plan.window, two_sided=True))


@variant("window-top-left", of="attention")
def _top_left(plan):
    """the band was aligned top-left: query i was placed at position i of the keys it met, not at the END
    (the new queries are the LAST t of the kept + new keys: query i sits at m + i)"""
    window = plan.window

    def visible(pq, pk, local):
        lag = local[0] - local[1]
        return (lag >= 0) & (lag < window)

    return _replay(plan, visible=visible)


@variant("window-ignored-in-cache", of="attention")
def _every_kept_key(plan):
    """a new query saw every kept key, however far back: the band applies to the cached keys too (their
    absolute positions are len(cache) - m ... len(cache) - 1), 0 <= pos - j < window"""
    window, cached = plan.window, lag_band(plan.window)

    def visible(pq, pk, local):
        return cached(pq, pk, local) | (pk < pq.min())

    return _replay(plan, visible=visible)


@variant("window-ignored-in-cache", of="attention")
def _whole_history(plan):
    """a new query saw every earlier position: the cache kept the whole history and the band was applied
    to the new keys only; keep the last window positions and band every key, 0 <= pos - j < window"""
    cached = lag_band(plan.window)

    def visible(pq, pk, local):
        return cached(pq, pk, local) | (pk < pq.min())

    return _replay(plan, kept=kept_all, visible=visible)


@variant("evicts-before-attending", of="attention")
def _appended_first(plan):
    """the chunk was appended (and the oldest keys dropped) before its queries attended: a chunk's early
    queries lost keys inside their band; attend over the kept and the new keys first, then append"""
    return _replay(plan, meets="after-append")


@variant("attend-before-append", of="attention")
def _kept_only(plan):
    """the new tokens attended only to what the cache held before them, so none saw its own key and value:
    attend over the kept keys AND the new ones"""
    return _replay(plan, meets="kept")


def _own_key_left_out(plan, high, empty):
    """A query at p saw the keys at p - high ... p - 1 of the kept and new ones, never its own: its row with
    no key at all is NaN (a -inf fill) or 0 (a fill made safe), `empty`."""
    out = _replay(plan, visible=lag_band(plan.window, low=1, high=high + 1))
    return out if empty == "nan" else np.nan_to_num(out, nan=0.0)


@variant("attend-before-append", of="attention")
def _window_before_nan(plan):
    """each new token attended to the window positions before it, never to its own key and value (the cache
    read before appending it): its own key is in its band, 0 <= pos - j < window"""
    return _own_key_left_out(plan, plan.window, "nan")


@variant("attend-before-append", of="attention")
def _window_before_zero(plan):
    """each new token attended to the window positions before it, never to its own key and value (the cache
    read before appending it): its own key is in its band, 0 <= pos - j < window"""
    return _own_key_left_out(plan, plan.window, "zero")


@variant("attend-before-append", of="attention")
def _band_without_own_nan(plan):
    """each new token attended to its band without its own key and value (1 <= pos - j < window): its own key
    is in its band, 0 <= pos - j < window"""
    if plan.window < 2:
        raise ValueError("window 1 leaves no key at all: another bug")
    return _own_key_left_out(plan, plan.window - 1, "nan")


@variant("attend-before-append", of="attention")
def _band_without_own_zero(plan):
    """each new token attended to its band without its own key and value (1 <= pos - j < window): its own key
    is in its band, 0 <= pos - j < window"""
    if plan.window < 2:
        raise ValueError("window 1 leaves no key at all: another bug")
    return _own_key_left_out(plan, plan.window - 1, "zero")


@variant("mask-inverted", of="attention")
def _band_blocked(plan):
    """each query saw the keys OUTSIDE its band and none inside it: the mask was read as True = blocked;
    True = may attend, block where it is False"""
    inside = lag_band(plan.window)
    return _replay(plan, visible=lambda pq, pk, local: ~inside(pq, pk, local))


@variant("cache-overwritten", of="attention")
def _last_chunk(plan):
    """each call saw only the chunk appended before it (and its own tokens): the cache kept only the last
    chunk; append must keep the last window positions of everything appended"""
    return _replay(plan, kept=kept_last_chunk)


@variant("mask-after-softmax", of="attention")
def _zeroed_after(plan):
    """the weights were zeroed outside the band after the softmax: rows no longer sum to 1; block the
    scores with -inf before the softmax"""
    return _replay(plan, after_softmax=True)


@variant("missing-scale", of="attention")
def _unscaled(plan):
    """the scores were not divided by sqrt(d)"""
    return _replay(plan, divisor=1.0)


# --- rivals: mistakes outside the catalogue that can look like one ----------------------------------------

def _no_mask(plan):
    return _replay(plan, visible=lambda pq, pk, local: np.ones((pq.shape[0], pk.shape[1]), bool))


def _causal_everything(plan):
    return _replay(plan, kept=kept_all, visible=lambda pq, pk, local: pk <= pq)


def _two_too_many(plan):
    return _replay(plan, visible=lag_band(plan.window, high=plan.window + 2))


def _causal_kept(plan):
    return _replay(plan, visible=lambda pq, pk, local: pk <= pq)


def _own_chunk_only(plan):
    """A call that attends over its own keys only (Mistral's one-file prefill path): on a chunk no longer than
    the window, after a full window, that is what appending first gives too."""
    return _replay(plan, meets="new")


def _top_left_causal(plan):
    """PyTorch's is_causal (top-left) over the keys met, no band: where no chunk is longer than the window it
    is what a top-left band gives too."""
    return _replay(plan, visible=lambda pq, pk, local: local[0] >= local[1])


ATTENTION_RIVALS = (_no_mask, _causal_everything, _two_too_many, _causal_kept, _own_chunk_only, _top_left_causal)



ATTENTION_VARIANTS = variants_in(dict(globals()), of="attention")

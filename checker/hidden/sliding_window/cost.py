"""Kata 13's cost checks: a rolling cache's memory stays flat as the history grows, and so does a decode
step's work. The figures are the kernel's, read by the checker from outside the learner's process
(`measuring`: the child's CPU clock and its peak resident memory, VmHWM, since before the file loaded), never a
number the learner's code reports. Memory is judged only on right numbers: kept() is checked at the end.
"""

import numpy as np

from checker.engine.testkit import Failure, as_pair, close, one_array, tolerance

# The memory check: 512 -> 8,192 positions appended in chunks of 256 to RollingKVCache(256), b=1, h=1, d = d_v = 32,
# after another cache was fed 2,048 positions the same way (the allocator's own first growth, PyTorch's or malloc's,
# is then behind the first figure). Keeping every position costs (8,192 - 512) x 64 x 8 bytes = 3.75 MiB more at the
# end than at 512 (1.9 MiB in float32); a ring of 256 slots holds 128 KiB in all. Measured (the kernel's VmHWM): the
# reference, five correct files, the PyTorch one, four written from the docstring and a probe of Mistral's rotating
# buffer grew 2-3.5 % of that history, a PyTorch torch.cat-then-trim cache 10 % (23 % without the warm-up cache);
# caches that keep every position 100-160 % (np.concatenate copies). The line: a quarter of the float64 history.
MEMORY_WINDOW, MEMORY_CHUNK, MEMORY_SHAPE = 256, 256, (1, 1, 32)
MEMORY_POSITIONS = (512, 8192)
MEMORY_SHARE = 0.25
WARM_POSITIONS = 2048  # another cache fed first, in the same chunks

# The step check: a decode step of window_attention after 256 and after 8,192 positions (filled with cache.append
# in chunks of up to 1,024), window 32, b=1, h=2, d = d_v = 16: the least CPU of three steps each. A right step
# meets window keys whatever the history: measured 0.9-1.4x (noise) over the same honest files; a step that bands
# the whole history 13.7x, one whose append copies it (np.concatenate) 7.5x (its memory names it in any case). The
# line, 4x for 32x the history, is a ratio of two CPU times of one process, so a busy machine moves both alike.
STEP_WINDOW, STEP_CHUNK, STEP_SHAPE = 32, 1024, (1, 2, 16)
STEP_POSITIONS = (256, 8192)
STEP_GROWTH = 4.0
STEPS = 3


def _mib(size):
    return f"{size / 2**20:.1f} MiB"


def _chunk(rng, shape, t):
    """Keys and values of t positions: one random draw of the kata's seed, shifted by a random offset per call (a
    fresh normal draw per chunk would cost the checker more than the learner's cache)."""
    b, h, d = shape
    key = (shape, t)
    if key not in _BASE:
        base = np.random.default_rng(13).normal(size=(2, b, h, t, d))
        _BASE[key] = base
    shift = rng.normal(size=(2, 1, 1, 1, d))
    return tuple(_BASE[key] + shift)


_BASE = {}


def memory_stays_flat(kata, rng, length):
    b, h, d = MEMORY_SHAPE
    warm = kata.RollingKVCache(MEMORY_WINDOW)  # the allocator's first growth (PyTorch's, malloc's) is not the cache's
    for _ in range(0, WARM_POSITIONS, MEMORY_CHUNK):
        warm.append(*_chunk(rng, MEMORY_SHAPE, MEMORY_CHUNK))
    cache = kata.RollingKVCache(MEMORY_WINDOW)
    peaks, appended, n = [], [], 0
    while n < MEMORY_POSITIONS[-1]:
        k, v = _chunk(rng, MEMORY_SHAPE, MEMORY_CHUNK)
        n += MEMORY_CHUNK
        if n in MEMORY_POSITIONS:
            _, figures = cache.append.measuring(k, v)
            peaks.append(figures["peak_bytes"])
        else:
            cache.append(k, v)
        appended = (appended + [(k, v)])[-2:]
    call = (f"RollingKVCache({MEMORY_WINDOW}).kept() after {n} positions appended in chunks of {MEMORY_CHUNK} "
            f"(b={b}, h={h}, d={d})")
    if length(cache, "cache") != n:
        raise Failure(f"values wrong, memory not judged: len(cache) is {length(cache, 'cache')} after {n} positions "
                      f"appended, expected {n}")
    got = np.stack([np.asarray(x, np.float64) for x in as_pair(cache.kept(), call, ("k", "v"))])
    want = np.stack([np.concatenate([c[i] for c in appended], axis=2)[:, :, -MEMORY_WINDOW:] for i in (0, 1)])
    if got.shape != want.shape or not close(got, want, *tolerance(want)).all():
        raise Failure(f"values wrong, memory not judged: {call} is not the last {MEMORY_WINDOW} positions appended, "
                      "oldest first")
    growth = peaks[1] - peaks[0]
    history = (MEMORY_POSITIONS[1] - MEMORY_POSITIONS[0]) * b * h * 2 * d * 8
    if growth > MEMORY_SHARE * history:
        short, long = MEMORY_POSITIONS
        raise Failure(f"RollingKVCache({MEMORY_WINDOW}) held {_mib(peaks[0])} at its peak after {short:,} positions "
                      f"and {_mib(peaks[1])} after {long:,} (the kernel's count of the whole process): "
                      f"{_mib(growth)} more for {long - short:,} positions it may drop, "
                      f"{growth / history:.0%} of keeping them all in float64; right numbers, but the cache keeps "
                      f"every position: it must hold at most window = {MEMORY_WINDOW} of them (a ring buffer)",
                      "cache-grows-unbounded", exact=True)


def _expected_step(keys, values, q, window):
    """The decode step's answer from the last `window` keys and values (the new one last)."""
    keys, values = keys[:, :, -window:], values[:, :, -window:]
    scores = q @ np.swapaxes(keys, -1, -2) / np.sqrt(q.shape[-1])  # (b, h, 1, window)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ values  # (b, h, 1, d_v)


def _step_cpu(kata, rng, n):
    """The least CPU time of STEPS decode steps after n positions, each step's answer checked first."""
    cache = kata.RollingKVCache(STEP_WINDOW)
    tail_k, tail_v = [], []
    for start in range(0, n, STEP_CHUNK):
        k, v = _chunk(rng, STEP_SHAPE, min(STEP_CHUNK, n - start))
        cache.append(k, v)
        tail_k, tail_v = [k], [v]
    best = None
    for step in range(STEPS):
        q, (k, v) = rng.normal(size=STEP_SHAPE[:2] + (1, STEP_SHAPE[2])), _chunk(rng, STEP_SHAPE, 1)
        got, figures = kata.window_attention.measuring(q, k, v, cache, STEP_WINDOW)
        tail_k.append(k)
        tail_v.append(v)
        call = f"window_attention(q, k, v {q.shape}, cache holding {n + step} positions, window={STEP_WINDOW})"
        got = one_array(got, call)
        want = _expected_step(np.concatenate(tail_k, axis=2), np.concatenate(tail_v, axis=2), q, STEP_WINDOW)
        if got.shape != want.shape or not close(got, want, *tolerance(got, want)).all():
            raise Failure(f"values wrong, cost not judged: {call} is not attention over the last {STEP_WINDOW} "
                          "positions")
        best = figures["cpu_seconds"] if best is None else min(best, figures["cpu_seconds"])
    return best


def step_cost_flat(kata, rng):
    small, large = (_step_cpu(kata, rng, n) for n in STEP_POSITIONS)
    growth = large / max(small, 1e-6)
    if growth > STEP_GROWTH:
        short, long = STEP_POSITIONS
        raise Failure(f"a decode step after {long:,} positions used {large * 1e3:.2f} ms of CPU, after {short:,} "
                      f"{small * 1e3:.2f} ms: {growth:.1f}x the work for {long // short}x the history (the kernel's "
                      f"count), though the band holds window = {STEP_WINDOW} keys either way: the step scores, masks "
                      "or copies the whole history, which the cache must not keep", "cache-grows-unbounded",
                      exact=True)

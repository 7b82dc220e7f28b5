"""The public checks of kata 13: `kata pack` copies `check` into a candidate's check.py (as
check_sliding_window) with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    return [{"b": draw.randint(1, 3), "heads": draw.randint(1, 3), "d": draw.randint(2, 4), "window": draw.randint(2, 4),
             "chunks": [draw.randint(3, 6), 1, draw.randint(2, 3), 1]}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape or length."""
    b, heads, d, window, chunks = dims["b"], dims["heads"], dims["d"], dims["window"], dims["chunks"]
    n = sum(chunks)
    expect_shape(f"sliding_window_mask({n}, {n}, {window})", module.sliding_window_mask(n, n, window), (n, n))
    q, k, v = (random_array(b, heads, n, d) for _ in range(3))
    cache, start = module.RollingKVCache(window), 0
    for t in chunks:
        call = f"window_attention(q[:, :, {start}:{start + t}] of {(b, heads, n, d)}, k, v, cache, window={window})"
        part = (x[:, :, start:start + t] for x in (q, k, v))
        expect_shape(call, module.window_attention(*part, cache, window), (b, heads, t, d))
        start += t
        if len(cache) != start:
            raise Problem(f"after {call}, len(cache) is {len(cache)}, expected {start}")
    kept_k, kept_v = cache.kept()
    for name, got in (("k", kept_k), ("v", kept_v)):
        expect_shape(f"cache.kept() {name} after {n} positions, window={window}", got, (b, heads, min(n, window), d))

"""The public checks of kata 05: `kata pack` copies `check` into a candidate's check.py (as
check_kv_cache) with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    return [{"b": draw.randint(1, 3), "heads": draw.randint(2, 3), "d_head": draw.randint(2, 4),
             "chunks": [draw.randint(2, 5), 1, draw.randint(2, 3), 1]}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    b, heads, d_head, chunks = dims["b"], dims["heads"], dims["d_head"], dims["chunks"]
    width = heads * d_head
    x, weights = random_array(b, sum(chunks), width), [random_array(width, width) for _ in range(4)]
    cache, start = module.KVCache(), 0
    for t in chunks:
        got = module.cached_attention(x[:, start:start + t], cache, *weights, n_heads=heads)
        call = f"cached_attention(x[:, {start}:{start + t}] of {(b, sum(chunks), width)}, cache, ..., n_heads={heads})"
        expect_shape(call, got, (b, t, width))
        start += t
        if len(cache) != start:
            raise Problem(f"after {call}, len(cache) is {len(cache)}, expected {start}")

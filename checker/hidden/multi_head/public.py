"""The public checks of kata 04: `kata pack` copies `check` into a candidate's check.py (as
check_multi_head) with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    return [{"b": draw.randint(1, 3), "n": draw.randint(3, 7), "heads": draw.randint(2, 4),
             "d_head": draw.randint(2, 5)}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    b, n, heads, d_head = dims["b"], dims["n"], dims["heads"], dims["d_head"]
    width = heads * d_head
    x, weights = random_array(b, n, width), [random_array(width, width) for _ in range(4)]
    split = module.split_heads(x, heads)
    expect_shape(f"split_heads(x {(b, n, width)}, {heads})", split, (b, heads, n, d_head))
    expect_shape(f"merge_heads(x {(b, heads, n, d_head)})", module.merge_heads(split), (b, n, width))
    for causal in (True, False):
        got = module.multi_head_attention(x, *weights, n_heads=heads, causal=causal)
        expect_shape(f"multi_head_attention(x {(b, n, width)}, w_q, w_k, w_v, w_o, n_heads={heads}, "
                      f"causal={causal})", got, (b, n, width))

"""The public checks of kata 06: `kata pack` copies `check` into a candidate's check.py (as check_rope) with
the cases that `cases` draws from the pack's seed. Shapes only, never values."""

import numpy as np

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    n, half, d_v = distinct(draw, 3, 2, 7)
    return [{"b": draw.randint(1, 3), "h": draw.randint(2, 3), "n": n, "d": 2 * half, "d_v": d_v,
             "t": draw.randint(1, n - 1)}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    b, h, n, d, d_v, t = dims["b"], dims["h"], dims["n"], dims["d"], dims["d_v"], dims["t"]
    for positions in (np.arange(n), np.zeros((b, 1, n), dtype=int) + np.arange(n)):
        call = f"rope(x {(b, h, n, d)}, positions {positions.shape})"
        expect_shape(call, module.rope(random_array(b, h, n, d), positions), (b, h, n, d))
    got = module.rope_attention(random_array(b, h, t, d), random_array(b, h, n, d), random_array(b, h, n, d_v))
    expect_shape(f"rope_attention(q {(b, h, t, d)}, k {(b, h, n, d)}, v {(b, h, n, d_v)})", got, (b, h, t, d_v))
    if np.asarray(got).dtype.kind != "f":
        raise Problem(f"rope_attention returned dtype {np.asarray(got).dtype}, expected floating point")

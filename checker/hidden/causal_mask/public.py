"""The public checks of kata 03: `kata pack` copies `check` into a candidate's check.py (as
check_causal_mask) with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

import numpy as np

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    cases = []
    for extra_keys in (draw.randint(1, 4), 0):
        n_q, d_k, d_v = distinct(draw, 3, 2, 7)
        cases.append({"b": draw.randint(1, 3), "n_q": n_q, "n_k": n_q + extra_keys, "d_k": d_k, "d_v": d_v})
    return cases


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    b, n_q, n_k, d_k, d_v = dims["b"], dims["n_q"], dims["n_k"], dims["d_k"], dims["d_v"]
    mask = module.causal_mask(n_q, n_k)
    expect_shape(f"causal_mask({n_q}, {n_k})", mask, (n_q, n_k))
    if np.asarray(mask).dtype != bool:
        raise Problem(f"causal_mask({n_q}, {n_k}) returned dtype {np.asarray(mask).dtype}, expected bool")
    call = f"attention(q {(b, n_q, d_k)}, k {(b, n_k, d_k)}, v {(b, n_k, d_v)}, causal_mask({n_q}, {n_k}))"
    result = module.attention(random_array(b, n_q, d_k), random_array(b, n_k, d_k), random_array(b, n_k, d_v), mask)
    if not isinstance(result, tuple) or len(result) != 2:
        raise Problem(f"{call} returned {type(result).__name__}, expected a pair (out, weights)")
    expect_shape(call + "'s out", result[0], (b, n_q, d_v))
    expect_shape(call + "'s weights", result[1], (b, n_q, n_k))

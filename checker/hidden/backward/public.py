"""The public checks of kata 11: `kata pack` copies `check` into a candidate's check.py (as
check_backward) with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

import numpy as np

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    n_q, d, d_v = distinct(draw, 3, 2, 7)
    return [{"b": draw.randint(1, 3), "h": draw.randint(1, 3), "n_q": n_q, "n_k": n_q + draw.randint(1, 4), "d": d,
             "d_v": d_v}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    b, h, n_q, n_k, d, d_v = (dims[name] for name in ("b", "h", "n_q", "n_k", "d", "d_v"))
    y = np.exp(random_array(b, n_q, n_k))
    y /= y.sum(axis=-1, keepdims=True)
    expect_shape(f"softmax_backward(y {(b, n_q, n_k)}, dy {(b, n_q, n_k)})",
                 module.softmax_backward(y, random_array(b, n_q, n_k)), (b, n_q, n_k))
    q, k, v = random_array(b, h, n_q, d), random_array(b, h, n_k, d), random_array(b, h, n_k, d_v)
    mask = np.arange(n_k)[None, :] <= np.arange(n_k - n_q, n_k)[:, None]  # causal, bottom-right
    call = f"attention_backward(q {(b, h, n_q, d)}, k {(b, h, n_k, d)}, v {(b, h, n_k, d_v)}, d_out {(b, h, n_q, d_v)}, mask)"
    result = module.attention_backward(q, k, v, random_array(b, h, n_q, d_v), mask)
    if not isinstance(result, tuple) or len(result) != 3:
        raise Problem(f"{call} returned {type(result).__name__}, expected the triple (dq, dk, dv)")
    for name, got, shape in zip(("dq", "dk", "dv"), result, ((b, h, n_q, d), (b, h, n_k, d), (b, h, n_k, d_v))):
        expect_shape(f"{call}'s {name}", got, shape)

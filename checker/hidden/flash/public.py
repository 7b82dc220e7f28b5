"""The public checks of kata 08: `kata pack` copies `check` into a candidate's check.py (as
check_flash) with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

import numpy as np

from checker.hiring.pack import distinct
from checker.hiring.pack_check import expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    n_q, d, d_v = distinct(draw, 3, 2, 7)
    n_k = n_q + draw.randint(2, 6)
    return [{"b": draw.randint(1, 3), "h": draw.randint(1, 3), "n_q": n_q, "n_k": n_k, "d": d, "d_v": d_v,
             "block_size": draw.randint(2, n_k - 1)}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    b, h, n_q, n_k, d, d_v, block = (dims[name] for name in ("b", "h", "n_q", "n_k", "d", "d_v", "block_size"))
    q, k, v = random_array(b, h, n_q, d), random_array(b, h, n_k, d), random_array(b, h, n_k, d_v)
    shapes = f"q {(b, h, n_q, d)}, k {(b, h, n_k, d)}, v {(b, h, n_k, d_v)}, block_size={block}"
    expect_shape(f"flash_attention({shapes})", module.flash_attention(q, k, v, block_size=block), (b, h, n_q, d_v))
    out = module.flash_attention(q, k, v, block_size=block, causal=True, mask=np.ones((b, 1, 1, n_k), bool))
    expect_shape(f"flash_attention({shapes}, causal=True, mask (b, 1, 1, n_k))", out, (b, h, n_q, d_v))

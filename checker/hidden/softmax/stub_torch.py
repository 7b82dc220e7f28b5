"""Kata 02: a numerically stable softmax.

Softmax turns any slice of scores into weights that are >= 0 and sum to 1, for any finite input.

Trap: done naively, exp() overflows for large scores and underflows to 0/0 for very negative ones;
shifting each slice by its own maximum fixes both without changing the result.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def softmax(x, axis=-1):
    """Softmax of x along `axis`, stable for any finite input.

    Args:
        x: scores of any shape (tensor, integer tensor or nested list).
        axis: the axis whose slices become weights; negative values count from the end.

    Returns:
        Floating-point tensor, same shape as x. Along `axis`:
        - every weight is >= 0 and each slice sums to 1, even for |x| of 1e4 and more,
          slices of only negative numbers, and slices far below the others;
        - an entry of -inf gets weight exactly 0, and a slice of only -inf gives all zeros (not NaN);
        - a slice holding NaN stays NaN: a NaN input is never hidden.
        Integers give floats (float64 is always fine; float32 and float16 may stay as they are).
        x itself is left unchanged.

    Example (row A of the A/B/C example: scores [4, 0, 2]):
        >>> softmax([4, 0, 2]).round(decimals=3)
        tensor([0.8670, 0.0160, 0.1170], dtype=torch.float64)
    """
    # TODO: make x a floating-point tensor.
    # TODO: exponentiate and normalise each slice along `axis` so that it sums to 1.
    # TODO: keep it stable, and keep every edge case of the docstring right.
    raise NotImplementedError("kata 02: write softmax")

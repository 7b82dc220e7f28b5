"""Telling a scale bug apart: a factor that equals one scale bug's on one input (sqrt(2 d_head) is sqrt(d_model)
when n_heads = 2, and d_head when d_head = 2) names it only if inputs whose sizes separate every scale bug agree.

`SIZES` are (n_q, n_k, d_head, n_heads) of two such inputs: on each, every divisor a scale bug uses (1, d_head,
1/sqrt(d_head), sqrt(n_q), sqrt(n_k), sqrt(d_model)) differs from the others, from sqrt(d_head) and from its
rounding, and from the rivals' (sqrt(2 d_head), sqrt(d_head + 1)). A kata's tests turn them into inputs of their own
shapes and say which id the learner's output matches there (`scale_confirmation`)."""

import numpy as np

SCALE_IDS = frozenset({"missing-scale", "scale-by-dk", "scale-inverted", "scale-by-seq-len", "scale-by-d-model"})
SIZES = ((2, 7, 5, 3), (6, 3, 7, 3))  # (n_q, n_k, d_head, n_heads); n_q is n where queries and keys are one sequence


def separated(n_q, n_k, d_head, n_heads):
    """Every divisor apart from every other and from the right one (a self-check of SIZES)."""
    values = [1.0, d_head, d_head ** -0.5, n_q ** 0.5, n_k ** 0.5, (d_head * n_heads) ** 0.5, d_head ** 0.5,
              float(np.floor(d_head ** 0.5)), float(np.round(d_head ** 0.5)), (2 * d_head) ** 0.5, (d_head + 1) ** 0.5]
    rounded = values[7] == values[8]  # floor and round of sqrt(d_head) may be the same number: one value then
    return len({round(v, 9) for v in values}) == len(values) - rounded


def scale_confirmation(bug_id, matches):
    """The `confirm` of a Failure naming `bug_id`: None unless it is a scale bug, else `confirm(kata)` that is True
    when `matches(kata, sizes)` (the id the learner's output matches on an input of those sizes, or None) is
    `bug_id` for every entry of SIZES."""
    if bug_id not in SCALE_IDS:
        return None
    return lambda kata: all(matches(kata, sizes) == bug_id for sizes in SIZES)

"""The public checks of kata 14: `kata pack` copies `check` into a candidate's check.py (as check_speculative)
with the cases that `cases` draws from the pack's seed. Types, shapes and lengths only, never values."""

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's checks, drawn from a pack's seed (`draw` is a random.Random)."""
    gamma, vocab = distinct(draw, 2, 2, 9)
    return [{"gamma": gamma, "vocab": vocab}, {"gamma": 0, "vocab": vocab}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong type, shape or length."""
    import numpy as np

    gamma, vocab = dims["gamma"], dims["vocab"]

    def probabilities(rows):
        e = np.exp(random_array(rows, vocab))
        return e / e.sum(axis=-1, keepdims=True)

    p_draft, p_target = probabilities(gamma), probabilities(gamma + 1)
    call = f"residual_distribution(p_target ({gamma + 1}, {vocab}), p_draft ({gamma + 1}, {vocab}))"
    expect_shape(call, module.residual_distribution(p_target, probabilities(gamma + 1)), (gamma + 1, vocab))
    tokens = [int(np.argmax(row)) for row in p_draft]
    call = f"speculative_step(p_draft ({gamma}, {vocab}), p_target ({gamma + 1}, {vocab}), {gamma} draft tokens)"
    new = module.speculative_step(p_draft, p_target, tokens, [0.5] * gamma, 0.5)
    if not isinstance(new, list) or not all(type(t) is int and 0 <= t < vocab for t in new):
        raise Problem(f"{call} returned {new!r}, expected a list of Python ints, token ids < {vocab}")
    if not 1 <= len(new) <= gamma + 1:
        raise Problem(f"{call} returned {len(new)} tokens, expected 1 to gamma + 1 = {gamma + 1}")

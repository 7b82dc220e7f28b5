"""Kata 14: speculative decoding (the accept/reject rule).

A small draft model proposes gamma tokens; the large target model scores all of them in one pass; a
rejection rule keeps the tokens the target would have produced, so the output is distributed EXACTLY as
the target's (Leviathan et al. 2023; Chen et al. 2023). Draft token x at position i is accepted with
probability min(1, p_target[i, x] / p_draft[i, x]); at the first rejection the walk stops and one token is
drawn from the residual max(0, p_target[i] - p_draft[i]), renormalised; if every drafted token is
accepted, a bonus token is drawn from p_target[gamma]. Every uniform is given, and every draw is an
inverse-CDF draw (the first token whose cumulative probability exceeds u), so every answer is exact and
testable without randomness.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def residual_distribution(p_target, p_draft):
    """The distribution a rejected position draws from: max(0, p_target - p_draft), normalised.

    Args:
        p_target: (..., V) probabilities, each row summing to 1 (entries >= 0), float32 or float64.
        p_draft: (..., V) the same shape, the draft model's probabilities for the same positions.

    Returns:
        (..., V) float: max(0, p_target - p_draft) divided by its sum along the last axis, so each row
        sums to 1 and the tokens the draft over-proposed get exactly 0. Where p_target equals p_draft
        (the residual is all zero, so a rejection cannot happen there), the row is p_target itself.
        The inputs are left unchanged.

    Trap: p_target - p_draft sums to 0 over a row; without max(0, .) it has negative entries, and its
        own sum is no denominator at all.

    Example (draft over-proposes tokens 0 and 3; what the target wants more of is tokens 1 and 2):
        >>> residual_distribution(torch.tensor([0.125, 0.375, 0.375, 0.125]), torch.tensor([0.25, 0.25, 0.25, 0.25]))
        tensor([0.0000, 0.5000, 0.5000, 0.0000], dtype=torch.float64)
    """
    # TODO: max(0, p_target - p_draft) along the last axis, then divide by its sum.
    # TODO: a row whose residual is all zero (p_target == p_draft) is p_target itself.
    raise NotImplementedError("kata 14: write residual_distribution")


def speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample):
    """One step of speculative sampling: which drafted tokens to keep, and the one token after them.

    Args:
        p_draft: (gamma, V) probabilities, row i the draft's distribution for drafted position i.
        p_target: (gamma + 1, V) probabilities, row i the target's distribution for the same position,
            row gamma the target's distribution after all gamma drafted tokens. float32 or float64.
        draft_tokens: gamma ints (a list or an int64 tensor), token i drawn from p_draft[i], so
            p_draft[i, token] > 0.
        u_accept: gamma floats in [0, 1) (a list or a 1-D tensor), one uniform per drafted token.
        u_sample: one float in [0, 1), the uniform of the one draw at the end.

    Returns:
        The new tokens, a list of 1 to gamma + 1 Python ints. Walk i = 0 ... gamma - 1: token
        x = draft_tokens[i] is accepted iff u_accept[i] < p_target[i, x] / p_draft[i, x] (so a ratio >= 1
        always accepts). At the first rejection, stop: append one token drawn from
        residual_distribution(p_target[i], p_draft[i]) with u_sample, and test no later token. If all
        gamma are accepted, append a bonus token drawn from p_target[gamma] with u_sample. A draw from
        p with u is the inverse-CDF rule: the first index whose cumulative probability exceeds u (u on
        a boundary goes right; if rounding leaves u past the last sum, the last token with p > 0).
        gamma = 0 returns one token drawn from p_target[0]. Shapes that disagree raise ValueError; the
        inputs are left unchanged.

    Why it is exact: the first new token is x (drawn from p_draft[0]) kept with probability
        min(1, p_target/p_draft), which gives min(p_draft, p_target)[0, a] for token a; a rejection
        happens with probability 1 - sum(min(p_draft, p_target)[0]) = sum(max(0, p_target - p_draft)[0]),
        and then a is drawn from the residual: max(0, p_target - p_draft)[0, a] in all. The two add up to
        p_target[0, a]. The same holds at every later position given the tokens before it.

    Hint: the walk is a loop with a break; the residual and the bonus share one drawing helper.

    Worked example (V = 4, gamma = 2, one rejection). Token 1 has ratio 0.375 / 0.25 = 1.5 >= 1:
        accepted whatever u. Token 0 has ratio 0.125 / 0.25 = 0.5 and u_accept[1] = 0.7 >= 0.5: rejected.
        Its residual is [0, 0.5, 0.5, 0], cumulative [0, 0.5, 1, 1]; u_sample = 0.6 picks token 2:
        >>> p_draft = torch.tensor([[0.5, 0.25, 0.125, 0.125], [0.25, 0.25, 0.25, 0.25]])
        >>> p_target = torch.tensor([[0.25, 0.375, 0.25, 0.125], [0.125, 0.375, 0.375, 0.125],
        ...                      [0.25, 0.25, 0.25, 0.25]])
        >>> float(p_target[0, 1] / p_draft[0, 1]), float(p_target[1, 0] / p_draft[1, 0])
        (1.5, 0.5)
        >>> residual_distribution(p_target[1], p_draft[1])
        tensor([0.0000, 0.5000, 0.5000, 0.0000], dtype=torch.float64)
        >>> speculative_step(p_draft, p_target, [1, 0], [0.9, 0.7], 0.6)
        [1, 2]

        With u_accept[1] = 0.3 < 0.5 both are accepted, and the bonus comes from p_target[2]
        (cumulative [0.25, 0.5, 0.75, 1]): u_sample = 0.6 picks token 2 there too.
        >>> speculative_step(p_draft, p_target, [1, 0], [0.9, 0.3], 0.6)
        [1, 0, 2]
    """
    # TODO: check the shapes: (gamma, V), (gamma + 1, V), gamma tokens, gamma uniforms.
    # TODO: walk the drafted tokens: accept x iff u_accept[i] < p_target[i, x] / p_draft[i, x].
    # TODO: at the first rejection, draw from the residual with u_sample and stop.
    # TODO: all accepted: draw the bonus token from p_target[gamma] with u_sample.
    # TODO: a draw (inverse CDF): the first index whose cumulative sum exceeds u.
    raise NotImplementedError("kata 14: write speculative_step")

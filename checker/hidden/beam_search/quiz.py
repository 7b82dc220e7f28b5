"""The answers of kata 12's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import math

import numpy as np

from checker.practice.worked import reference


def candidates_per_step(beam_width, vocab):
    """Every live beam extended by every token, ranked together."""
    return beam_width * vocab


def first_step_candidates(beam_width, vocab):
    """One live beam at the start (never beam_width copies): its V extensions."""
    return vocab


def candidate_sums(beam_width, vocab, max_new):
    """The most candidate sums a search computes: V at the first step, beam_width x V at each later one."""
    return vocab + (max_new - 1) * beam_width * vocab


def hypothesis_sum(probs):
    """The sum of the log-probabilities of a hypothesis's tokens."""
    return float(np.sum(np.log(probs)))


def product_exponent(length, prob):
    """The product of `length` probabilities of `prob` each, as a power of ten (rounded down)."""
    return math.floor(length * math.log10(prob))


def penalised_score(total, length, length_penalty):
    return total / length**length_penalty


def winner_length(short, long, length_penalty):
    """The new tokens (eos included) of the hypothesis beam search returns of two finished ones, each given as
    [length, sum]; on a tie the first."""
    scores = [penalised_score(total, length, length_penalty) for length, total in (short, long)]
    return (short, long)[int(scores[1] > scores[0])][0]


def beam_answer_on_a_model(after_prompt, eos_after, beam_width, length_penalty):
    """The tokens of beam_search on a 3-token model (eos = 0) after the prompt [1], with max_new = 3: row 1 is
    `after_prompt`, and after token 2 eos has probability `eos_after` (tokens 1 and 2 share the rest)."""
    rest = (1 - eos_after) / 2
    model = np.log(np.array([[1 / 3] * 3, after_prompt, [eos_after, rest, rest]]))
    return reference("beam-search").beam_search(model, [1], beam_width, 3, 0, length_penalty)[0]

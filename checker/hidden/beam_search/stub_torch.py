"""Kata 12: the decoding loop, greedy and beam search, over a bigram model given as data.

A decoder turns next-token log-probabilities into a sequence. Greedy takes the best token at every
step; beam search keeps the beam_width best partial sequences (hypotheses), ranks every extension of
all of them together by its summed log-probability, sets aside those that emit eos, and at the end
picks the finished hypothesis whose score, the sum divided by length ** length_penalty, is highest.
Here the model is a table: logprobs[a, b] is log P(next = b | previous = a), so every answer is exact.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def greedy_decode(logprobs, prompt, max_new, eos):
    """Greedy decoding: append the most probable next token until eos or max_new new tokens.

    Args:
        logprobs: (V, V) float tensor, a bigram model: row a holds the log-probabilities of the token
            after token a (each row a log-softmax; -inf allowed).
        prompt: a non-empty list of ints; only its last token conditions the first new one.
        max_new: an int >= 1, the most new tokens to make.
        eos: an int, the end-of-sequence token: decoding stops once it is emitted.

    Returns:
        The NEW tokens only, as a list of Python ints: at each step the argmax of the row of the last
        token (the lowest id on ties), eos included when it was emitted. Inputs are left unchanged.

    Example (after token 1, token 2 is the most probable; after 2, eos = 0 is):
        >>> greedy_decode(torch.tensor([[0.5, 0.25, 0.25], [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]).log(), [1], 5, 0)
        [2, 0]
    """
    # TODO: start from the prompt's last token; at each step take the argmax of that token's row.
    # TODO: append it; stop once it is eos or max_new tokens are new. Return a list of Python ints.
    raise NotImplementedError("kata 12: write greedy_decode")


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    """Beam search with a length penalty, returning the best finished hypothesis and its score.

    Args:
        logprobs: (V, V) float tensor, a bigram model as for greedy_decode.
        prompt: a non-empty list of ints.
        beam_width: an int >= 1, how many hypotheses stay live, and how many finished ones stop the search.
        max_new: an int >= 1, the most new tokens of a hypothesis.
        eos: an int, the end-of-sequence token.
        length_penalty: a float; a finished hypothesis scores sum / (new tokens) ** length_penalty,
            its new tokens counting eos (never the prompt). 0 ranks by the plain sum; larger values
            favour longer hypotheses.

    Returns:
        (tokens, score): the NEW tokens of the best finished hypothesis, a list of Python ints (eos
        included when it was emitted), and its score, a float. Precisely:
        - Start with one live beam, the prompt, whose sum is 0 (never beam_width copies of it).
        - Each step, every live beam extended by every token is a candidate, its sum the beam's plus
          logprobs[last token, new token]. Rank all the step's candidates together, highest sum first;
          ties go to the candidate of the better live beam, then to the lower token id.
        - Walk the ranking: a candidate ending in eos within the first beam_width ranks is finished;
          other eos candidates are dropped; the first beam_width candidates not ending in eos, in
          ranking order, are the next live beams. A candidate whose sum is -inf counts like any other.
        - Stop once beam_width hypotheses are finished, or after the step that makes max_new new
          tokens. Either way every live beam left is finished too, scored the same way.
        - Return the finished hypothesis of highest score. Ties: the one finished first (the eos ones
          by step, then rank within the step; the live beams finished at the stop after them all, in
          their rank order).
        beam_width 1 gives greedy_decode's tokens. Inputs are left unchanged.

    Example (after token 1, eos = 0 and token 2 tie at 0.4: greedy stops at once on eos, the lower
    id; beam search also keeps 2, then eos, whose sum log 0.4 + log 0.6 over 2 tokens scores higher):
        >>> model = torch.tensor([[0.5, 0.25, 0.25], [0.4, 0.2, 0.4], [0.6, 0.3, 0.1]]).log()
        >>> greedy_decode(model, [1], 4, 0)
        [0]
        >>> tokens, score = beam_search(model, [1], beam_width=2, max_new=4, eos=0)
        >>> tokens, round(score, 4)
        ([2, 0], -0.7136)
        >>> tokens, score = beam_search(model, [1], beam_width=2, max_new=4, eos=0, length_penalty=0.0)
        >>> tokens, round(score, 4)
        ([0], -0.9163)
    """
    # TODO: one live beam (the prompt, sum 0); each step rank every (beam, token) candidate together.
    # TODO: eos within the first beam_width ranks is finished; the first beam_width others stay live.
    # TODO: stop at beam_width finished or max_new tokens; finish the live beams; best score wins.
    raise NotImplementedError("kata 12: write beam_search")

"""The public checks of kata 12: `kata pack` copies `check` into a candidate's check.py (as
check_beam_search) with the cases that `cases` draws from the pack's seed. Types and lengths only, never values."""

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, random_array


def cases(draw):
    """The dimensions of this kata's checks, drawn from a pack's seed (`draw` is a random.Random)."""
    vocab, max_new, prompt = distinct(draw, 3, 3, 8)
    return [{"vocab": vocab, "beam_width": draw.randint(1, vocab - 1), "max_new": max_new, "prompt": prompt,
             "eos": draw.randrange(vocab)}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong type or length."""
    import numpy as np

    vocab, width, max_new, eos = dims["vocab"], dims["beam_width"], dims["max_new"], dims["eos"]
    logits = random_array(vocab, vocab)
    logprobs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))  # each row a log-softmax
    prompt = [i % vocab for i in range(dims["prompt"])]
    shown = f"logprobs ({vocab}, {vocab}), prompt of {len(prompt)} tokens, max_new={max_new}, eos={eos}"
    pair = module.beam_search(logprobs, prompt, width, max_new, eos)
    call = f"beam_search({shown}, beam_width={width})"
    if not isinstance(pair, tuple) or len(pair) != 2 or isinstance(pair[1], bool) or \
            not isinstance(pair[1], (int, float, np.floating, np.integer)):
        raise Problem(f"{call} returned {pair!r}, expected the pair (tokens, score), score a float")
    for call, tokens in ((f"greedy_decode({shown})", module.greedy_decode(logprobs, prompt, max_new, eos)),
                         (call, pair[0])):
        if not isinstance(tokens, list) or not all(type(t) is int and 0 <= t < vocab for t in tokens):
            raise Problem(f"{call} returned tokens {tokens!r}, expected a list of Python ints, token ids < {vocab}")
        if not 1 <= len(tokens) <= max_new:
            raise Problem(f"{call} returned {len(tokens)} tokens, expected 1 to max_new = {max_new} new tokens")

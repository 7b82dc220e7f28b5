"""Kata 12's reference against SPEC's rules applied literally, written apart from it, over hundreds of seeded
models (and against the variants' clean search, the third reading of the same rules).

The literal search keeps every hypothesis as a tuple of new tokens and recomputes its sum along the path, sorts
ALL of a step's candidates by (-sum, rank of its live beam, token) and walks the whole ranking; the final choice
scans the finished hypotheses in the order they were finished. Where beam_width holds every sequence, beam search
is exhaustive: its answer is the best of all sequences that end at their first eos or at max_new tokens.
"""

import itertools
from functools import lru_cache

import numpy as np
import pytest

from checker.engine import catalog
from checker.hidden.beam_search import models
from checker.hidden.beam_search.variants import search


@lru_cache(maxsize=None)
def reference():
    return catalog.find("beam-search").reference()


def path_sum(rows, prompt, sequence):
    total, last = 0.0, prompt[-1]
    for token in sequence:
        total, last = total + rows[last][token], token
    return total


def literal(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    rows = np.asarray(logprobs, np.float64).tolist()
    live, finished = [()], []
    for _ in range(max_new):
        candidates = [(beam, token) for beam in range(len(live)) for token in range(len(rows))]
        candidates.sort(key=lambda c: (-path_sum(rows, prompt, live[c[0]] + (c[1],)), c[0], c[1]))
        next_live = []
        for rank, (beam, token) in enumerate(candidates):
            sequence = live[beam] + (token,)
            if token == eos:
                if rank < beam_width:
                    finished.append(sequence)
            elif len(next_live) < beam_width:
                next_live.append(sequence)
        live = next_live
        if len(finished) >= beam_width:
            break
    finished += live
    scores = [path_sum(rows, prompt, s) / len(s) ** length_penalty for s in finished]
    best = scores.index(max(scores))
    return list(finished[best]), scores[best]


def literal_greedy(logprobs, prompt, max_new, eos):
    rows, out = np.asarray(logprobs).tolist(), []
    while len(out) < max_new and eos not in out:
        row = rows[out[-1] if out else prompt[-1]]
        out.append(row.index(max(row)))  # list.index: the lowest id of the maximum
    return out


def exhaustive(logprobs, prompt, max_new, eos, length_penalty):
    rows, best = np.asarray(logprobs, np.float64).tolist(), None
    for length in range(1, max_new + 1):
        for sequence in itertools.product(range(len(rows)), repeat=length):
            if eos in sequence[:-1] or (length < max_new and sequence[-1] != eos):
                continue
            score = path_sum(rows, prompt, sequence) / length**length_penalty
            if best is None or score > best[1]:
                best = (list(sequence), score)
    return best


def _cases(seed, count, **ranges):
    rng = np.random.default_rng(seed)
    for i in range(count):
        blocked = 0.3 if i % 4 == 0 else 0.0
        bias = -np.inf if i % 5 == 0 else (-1.0, 2.0)
        yield models.draw_case(rng, vocab=(3, 6), widths=(1, 5), max_new=(1, 5), prompt=(1, 4), eos_bias=bias,
                               blocked=blocked, **ranges)


def _same(a, b):
    return a[0] == b[0] and (a[1] == b[1] or abs(a[1] - b[1]) <= 1e-12 * max(1.0, abs(b[1])))


@pytest.mark.parametrize("seed", range(3))
def test_reference_follows_the_rules_literally(seed):
    for case in _cases(seed, 100):
        want = literal(**case)
        assert _same(reference().beam_search(**case), want), case
        assert _same(search(**case)[:2], want), case


def test_ties_follow_the_rules_literally():
    # permuted models: two-step sums tie exactly, so the tie rules decide (as they do for any implementation)
    for case in _cases(7, 150, ties=True, penalties=(0.0, 1.0)):
        case["max_new"] = min(case["max_new"], 2)
        assert _same(reference().beam_search(**case), literal(**case)), case


def test_a_beam_that_holds_every_sequence_is_exhaustive():
    rng = np.random.default_rng(11)
    for _ in range(60):
        vocab, max_new = int(rng.integers(2, 4)), int(rng.integers(1, 4))
        case = models.draw_case(rng, vocab=(vocab, vocab), widths=(1, 1), max_new=(max_new, max_new),
                                eos_bias=(-0.5, 1.5))
        case["beam_width"] = sum(vocab**n for n in range(1, max_new + 1)) + 1  # more than every sequence
        tokens, score = reference().beam_search(**case)
        best = exhaustive(case["logprobs"], case["prompt"], case["max_new"], case["eos"], case["length_penalty"])
        assert tokens == best[0] and abs(score - best[1]) <= 1e-12 * max(1.0, abs(best[1])), case


def test_greedy_follows_the_rules_literally_and_is_width_one():
    rng = np.random.default_rng(5)
    for i in range(100):
        case = models.draw_greedy_case(rng, eos_bias=-np.inf if i % 4 == 0 else (-1.0, 2.0))
        tokens = reference().greedy_decode(**case)
        assert tokens == literal_greedy(**case), case
        assert all(type(t) is int for t in tokens)
        for penalty in (0.0, 1.0):  # SPEC: width 1 with penalty 0 is greedy (and with any penalty here)
            assert reference().beam_search(**case, beam_width=1, length_penalty=penalty)[0] == tokens, case


def test_the_stored_telling_cases_are_current():
    """`kata check 12` under the default seed reads its telling cases' generator states from stored_cases.py:
    a check of the reference finds, afresh, exactly the searches and states stored (none missing, none stale)."""
    from checker.hidden.beam_search import stored, stored_cases

    fresh = stored.found_now()
    assert fresh, "the check made no search: nothing would be stored"
    assert fresh == stored_cases.STATES, "stored_cases.py is stale: python -m checker.hidden.beam_search.stored"


def test_a_stored_search_draws_the_cases_a_fresh_one_finds():
    """Read from the file or found now, a search's cases are the same arrays (each drawn again from its state)."""
    from checker.hidden.beam_search import stored, stored_cases

    search_key = next(iter(stored_cases.STATES))
    name, args, ranges = eval(search_key)  # noqa: S307 - our own generated file's keys: repr of plain values
    search = getattr(models, name)
    read = search(*args, **dict(ranges))
    search.cache_clear()
    kept, stored._stored = stored._stored, {}
    try:
        computed = search(*args, **dict(ranges))
    finally:
        stored._stored = kept
        search.cache_clear()
    assert len(read) == len(computed) > 0
    for one, other in zip(read, computed):
        assert [k for k, _ in one] == [k for k, _ in other]
        assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(one, other))

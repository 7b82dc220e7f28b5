"""Hidden tests for kata 12: greedy_decode(logprobs, prompt, max_new, eos) and beam_search(logprobs, prompt,
beam_width, max_new, eos, length_penalty).

The model is data, so SPEC's rules give one answer: every case is a seeded random bigram model whose decisions
stay MARGIN apart (models.py), or a permuted one whose two-step sums tie exactly. A test built for a bug runs
the cases on which that bug's variants answer differently from the right search and from every other bug's;
a bug is named only when one variant reproduces every answer of the test (explain.Evidence).
"""

import numpy as np

from checker.hidden.beam_search import models
from checker.hidden.beam_search.explain import Evidence, beam_failure, greedy_failure, pair_of, tokens_of
from checker.hidden.beam_search.models import agree, draw_case, draw_greedy_case
from checker.hidden.beam_search.variants import BEAM_VARIANTS, GREEDY_RIVALS, GREEDY_VARIANTS, RIVALS, encoded
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, bug, call_text, changed, show, weight

API = {"greedy_decode": ("logprobs", "prompt", "max_new", "eos"),
       "beam_search": ("logprobs", "prompt", "beam_width", "max_new", "eos", "length_penalty")}
BEAM_ARGS, GREEDY_ARGS = API["beam_search"], API["greedy_decode"]
NEVER = -np.inf  # an eos_bias: eos's column is -inf, so eos is never emitted


def _in_order(case, names):
    return {name: case[name] for name in names if name in case}


def _beam(kata, ref, cases, why="", keywords=False, name=True):
    """Run every case; fail on the first wrong answer, naming the bug whose variant reproduces them all (when
    `name`: the cases were chosen to tell the bugs apart, or are many)."""
    evidence, first = Evidence(BEAM_VARIANTS, RIVALS), None
    for case in map(dict, cases):
        case = _in_order(case, BEAM_ARGS)
        call = call_text("beam_search", **case)
        tokens, score = pair_of(kata.beam_search(**case) if keywords else kata.beam_search(*case.values()), call)
        right_tokens, right_score = ref.beam_search(**case)
        got, right = encoded(tokens, score), encoded(right_tokens, right_score)
        full = {**case, "length_penalty": case.get("length_penalty", 1.0)}
        evidence.add(full, got, right)
        if first is None and not agree(got, right):
            first = (full, tokens, score, right_tokens, right_score)
    if first:
        raise beam_failure(*first, evidence.named() if name else None, why)


def _greedy(kata, ref, cases, why="", keywords=False):
    evidence, first = Evidence(GREEDY_VARIANTS, GREEDY_RIVALS), None
    for case in map(dict, cases):
        case = _in_order(case, GREEDY_ARGS)
        call = call_text("greedy_decode", **case)
        got = kata.greedy_decode(**case) if keywords else kata.greedy_decode(*case.values())
        tokens, right = tokens_of(got, call), ref.greedy_decode(**case)
        evidence.add(case, encoded(tokens), encoded(right))
        if first is None and tokens != right:
            first = (case, tokens, right)
    if first:
        raise greedy_failure(*first, evidence.named(), why)


def _seed(rng):
    return int(rng.integers(2**31))


# --- greedy_decode ---------------------------------------------------------------------------------

def test_greedy_returns_a_list_of_python_ints(kata):
    case = {"logprobs": models.log_softmax([[0.0, 2.0, 1.0], [1.0, 0.0, 3.0], [2.0, 1.0, 0.0]]), "prompt": [0],
            "max_new": 3, "eos": 1}
    got = kata.greedy_decode(*[case[n] for n in GREEDY_ARGS])
    if not isinstance(got, list) or not all(type(t) is int for t in got):
        kinds = sorted({type(t).__name__ if not isinstance(t, np.ndarray) else f"NumPy {t.dtype}" for t in
                        (got if isinstance(got, (list, tuple)) else [got])})
        raise Failure(f"{call_text('greedy_decode', **case)} returned {show(got)} ({type(got).__name__} of "
                      f"{', '.join(kinds)}), expected a list of Python ints: int(np.argmax(row)) turns a NumPy "
                      "integer into one, and tokens.tolist() an array into a list")


def test_greedy_random_models(kata, ref, rng):
    cases = [draw_greedy_case(rng, eos_bias=bias) for bias in (2.0, -0.5, NEVER, 0.5, 1.0, NEVER)]
    cases += models.greedy_tie_cases(_seed(rng))  # a permuted model, where a tie decides
    _greedy(kata, ref, cases, "at each step the argmax of the previous token's row (the lowest id on ties), "
                              "until eos or max_new tokens")


@bug("greedy-ignores-eos")
def test_greedy_stops_at_eos(kata, ref, rng):
    _greedy(kata, ref, models.greedy_telling_cases("greedy-ignores-eos", _seed(rng)),
            "greedy decoding stops once eos is emitted, and returns it")


@bug("greedy-wrong-axis")
def test_greedy_reads_the_previous_tokens_row(kata, ref, rng):
    _greedy(kata, ref, models.greedy_telling_cases("greedy-wrong-axis", _seed(rng)),
            "logprobs[a] (row a) is the distribution of the token after a")


def test_greedy_ties(kata, ref):
    row = np.log([0.1, 0.35, 0.2, 0.35])  # tokens 1 and 3 tie
    cases = [{"logprobs": np.stack([row, np.roll(row, 1), np.roll(row, 2), row]), "prompt": [2, 0], "max_new": 3,
              "eos": 0}]
    _greedy(kata, ref, cases, "on a tie the lowest token id wins, as np.argmax gives")


# --- beam_search: what comes back ------------------------------------------------------------------

def test_beam_returns_tokens_and_score(kata, rng):
    case = draw_case(rng, widths=(2, 2), max_new=(3, 3))
    call = call_text("beam_search", **case)
    got = kata.beam_search(*[case[n] for n in BEAM_ARGS])
    tokens, _ = pair_of(got, call)
    if not isinstance(got[0], list) or not all(type(t) is int for t in got[0]):
        raise Failure(f"{call} returned tokens {show(got[0])}, expected a list of Python ints: only the NEW "
                      "tokens, each an int (int(token), or tokens.tolist() for an array)")


def test_width_one_is_greedy(kata, ref, rng):
    cases = [draw_case(rng, widths=(1, 1), penalties=(0.0,), eos_bias=bias) for bias in (1.0, 0.0, NEVER)]
    _beam(kata, ref, cases, "beam_width 1 keeps the best candidate of each step: greedy's tokens", name=False)


TIES = {"ties": True, "max_new": (1, 2), "widths": (2, 4), "penalties": (0.0, 1.0)}
# more than 16 candidates a step, where np.argsort's default sort is not stable; ties that decide under either
# wrong order: on 8 of them np.argsort(-sums) (unstable) changes an answer under 28 of 30 seeds measured
WIDE_TIES = {**TIES, "vocab": (6, 8), "widths": (3, 4)}
TIE_RIVALS = ("ties-by-token", "ties-reversed", "last-of-equal-scores")


@weight(2)
def test_random_models(kata, ref, rng):
    cases = [draw_case(rng, widths=(width, width), penalties=(penalty,), eos_bias=(1.0, 2.0) if early else NEVER,
                       blocked=0.15 * (width % 2))
             for width in range(1, 6) for penalty in models.LENGTH_PENALTIES for early in ((width + int(penalty)) % 2,)]
    seed = _seed(rng)  # and permuted models, where ties decide
    cases += sum((models.cases_showing(name, seed, 1, **TIES) for name in TIE_RIVALS), ()) + \
        models.cases_showing("ties-reversed+ties-by-token", seed, 3, **WIDE_TIES)
    _beam(kata, ref, cases)


# --- beam_search: one bug at a time ------------------------------------------------------------------

def _telling(kata, ref, rng, bug_id, why, **ranges):
    _beam(kata, ref, models.telling_cases(bug_id, _seed(rng), **ranges), why)


@bug("beam-sums-probabilities")
def test_log_probabilities_add(kata, ref, rng):
    _telling(kata, ref, rng, "beam-sums-probabilities", "a hypothesis's sum is the sum of its log-probabilities")


@weight(2)
@bug("beam-per-beam-topk")
def test_ranks_every_candidate_together(kata, ref, rng):
    # with eos never emitted, taking the beams' candidates beam by beam follows greedy's path (beam 0's best child
    # is greedy's next token), so the cases hold eos: its variants finish eos within the first ranks, or anywhere
    cases = models.telling_cases("beam-per-beam-topk", _seed(rng), eos_bias=(-1.0, 1.0), widths=(2, 4),
                                 max_new=(3, 6), vocab=(5, 8))
    _beam(kata, ref, cases + (tuple(_one_beam_leads().items()),) + _cut_before_ranking_cases(),
          "rank all beam_width x V candidates of a step together")


POOL_EACH_DRAWS = (1188, 1298)  # raw_case streams [seed, 12]: the first two of 4,000 on which cutting each beam to
# its own best beam_width before ranking answers unlike every other variant and rival (beam widths 2 and 3)


def _cut_before_ranking_cases():
    ranges = {"eos_bias": (-1.0, 1.0), "widths": (2, 4), "max_new": (3, 6), "vocab": (5, 8)}
    return tuple(tuple(models.raw_case(np.random.default_rng([seed, 12]), **ranges).items())
                 for seed in POOL_EACH_DRAWS)


def _one_beam_leads():
    """A case where, at step 2, beam [1]'s best three candidates (its eos among them) rank above beam [2]'s
    best: the right search keeps two of [1]'s, so a search that first cuts each beam to its own best beam_width
    keeps [2]'s best instead, and answers from it (a case random draws rarely give)."""
    row = models.log_softmax
    logprobs = np.stack([row([0.0] * 5), row([0.9, 0.5, -2.0, 1.6, -2.0]), row([-1.0, -1.0, 3.0, -1.0, -1.0]),
                         row([0.0, 0.1, 0.2, 0.3, 0.4]), row([-3.0, 2.0, 0.25, -3.0, -3.0])])
    logprobs.flags.writeable = False
    return {"logprobs": logprobs, "prompt": [4], "beam_width": 2, "max_new": 3, "eos": 0, "length_penalty": 2.0}


@bug("beam-initial-copies")
def test_starts_from_one_beam(kata, ref, rng):
    _telling(kata, ref, rng, "beam-initial-copies", "the search starts from ONE live beam, the prompt")


@bug("beam-extends-finished")
def test_finished_hypotheses_stop_growing(kata, ref, rng):
    _telling(kata, ref, rng, "beam-extends-finished", "a hypothesis that emits eos is finished: it stops there",
             eos_bias=(0.5, 2.5))


@bug("beam-drops-finished")
def test_finished_hypotheses_are_kept(kata, ref, rng):
    _telling(kata, ref, rng, "beam-drops-finished", "an eos candidate within the first beam_width ranks is kept "
             "as finished, and competes at the end", eos_bias=(0.5, 2.5))


@bug("beam-no-length-penalty")
def test_length_penalty(kata, ref, rng):
    _telling(kata, ref, rng, "beam-no-length-penalty", "score = sum / (new tokens) ** length_penalty",
             eos_bias=(0.0, 2.0), penalties=(0.5, 1.0, 2.0))


@bug("beam-penalty-counts-prompt")
def test_penalty_counts_new_tokens(kata, ref, rng):
    _telling(kata, ref, rng, "beam-penalty-counts-prompt", "the length is the NEW tokens, eos included",
             prompt=(3, 6), penalties=(0.5, 1.0, 2.0))


# --- beam_search: the precise rules ------------------------------------------------------------------

@weight(2)
def test_eos_finishes_only_within_the_first_ranks(kata, ref, rng):
    seed, ranges = _seed(rng), {"eos_bias": (1.0, 2.5), "widths": (2, 5)}
    cases = models.cases_showing("eos-at-any-rank", seed, **ranges) + \
        models.cases_showing("eos-takes-a-slot", seed, **ranges)
    _beam(kata, ref, cases, "walk the ranking: an eos candidate within the first beam_width ranks is finished, "
                            "others are dropped; the first beam_width non-eos candidates, wherever they rank, are "
                            "the next live beams", name=False)


def test_stop_keeps_the_live_beams(kata, ref, rng):
    _beam(kata, ref, models.cases_showing("drops-live-at-stop", _seed(rng), eos_bias=(1.0, 2.5)),
          "when beam_width hypotheses are finished, the live beams left are finished too and compete", name=False)


def test_ties(kata, ref, rng):
    seed = _seed(rng)
    cases = sum((models.cases_showing(name, seed, **TIES) for name in TIE_RIVALS), ()) + \
        models.cases_showing("ties-reversed+ties-by-token", seed, 8, **WIDE_TIES)
    _beam(kata, ref, cases, "equal sums rank the candidate of the better live beam first, then the lower token; "
                            "equal final scores go to the hypothesis finished first", name=False)


def test_minus_inf_entries(kata, ref, rng):
    # -inf sums are candidates like any other: an eos one within the first beam_width ranks finishes
    cases = [draw_case(rng, blocked=0.35, vocab=(5, 7)) for _ in range(3)]
    row = models.log_softmax([0.0, 1.0, -np.inf, -np.inf])  # after token 0 only tokens 0 and 1 are possible
    cases.append({"logprobs": np.stack([row, np.roll(row, 1), models.log_softmax([1.0, 0.0, 2.0, 0.5]),
                                        models.log_softmax([0.5, 0.5, 1.0, 0.0])]),
                  "prompt": [0], "beam_width": 3, "max_new": 3, "eos": 2, "length_penalty": 1.0})
    _beam(kata, ref, cases, "a -inf sum is a candidate like any other: an eos one ranked within the first "
                            "beam_width is finished (score -inf) and counts toward the stop", name=False)


def test_keyword_arguments(kata, ref, rng):
    case = draw_case(rng, widths=(3, 3), penalties=(2.0,))
    _beam(kata, ref, [case], "called with keywords", keywords=True, name=False)
    del case["length_penalty"]
    _beam(kata, ref, [case], "length_penalty defaults to 1.0", keywords=True, name=False)
    _greedy(kata, ref, [{k: case[k] for k in GREEDY_ARGS}], "called with keywords", keywords=True)


def test_float32_model(kata, ref, rng):
    cases = []
    while len(cases) < 3:
        case = draw_case(rng, widths=(2, 4))
        case["logprobs"] = case["logprobs"].astype(np.float32)
        if models.margin(case) >= models.MARGIN:
            cases.append(case)
    _beam(kata, ref, cases, "a float32 model: the same search", name=False)


@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    case = draw_case(rng, widths=(3, 3), max_new=(4, 4), eos_bias=(1.0, 1.0), prompt=(2, 2), blocked=0.3)
    for name, function, params in (("beam_search", kata.beam_search, BEAM_ARGS),
                                   ("greedy_decode", kata.greedy_decode, GREEDY_ARGS)):
        args = [case[p] for p in params]
        try:
            _, after = function.keeping_args(*[a.copy() if hasattr(a, "copy") else a for a in args])
        except LearnerError as error:
            if error.not_implemented:
                raise
            continue  # a crash is another test's failure
        for param, before, now in zip(params, args, after):
            if isinstance(before, np.ndarray):
                same = isinstance(now, np.ndarray) and now.shape == before.shape and np.array_equal(now, before)
            else:
                same = now == before
            if not same:
                what = changed(before, now) if isinstance(now, np.ndarray) and now.shape == before.shape else \
                    f"was {show(before)}, now {show(now)}"
                raise Failure(f"{call_text(name, **dict(zip(params, args)))} changed its argument {param} ({what}): "
                              "tokens = prompt + [t] makes a new list where prompt.append(t) grows the caller's, "
                              "and logprobs[...] = ... writes into the caller's model", "mutates-input", exact=True)

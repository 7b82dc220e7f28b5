"""Hidden tests for kata 14: residual_distribution(p_target, p_draft) and speculative_step(p_draft, p_target,
draft_tokens, u_accept, u_sample).

Every uniform is given and every draw is kata 09's inverse-CDF rule, so SPEC's rule gives one answer:
random cases keep their uniforms clear of every boundary (cases.py), boundary cases are dyadic and hit
them exactly. A test built for a bug runs the cases on which that bug's variants answer apart from the
right step and from every other bug's; a bug is named only when one bug's variants reproduce every answer
of the test (explain.Evidence). The property that matters, the output distributed as the target's, is
integrated over the drafted tokens and the uniforms (integrate.py), never sampled.
"""

import numpy as np

from checker.hidden.speculative import cases, integrate
from checker.hidden.speculative.cases import ARGS, draw_case, dyadic, dyadic_rejection, frozen, telling
from checker.hidden.speculative.checks import first_wrong, integrated, residual, steps, unchanged
from checker.hidden.speculative.explain import distribution_table, right_answer, step_failure
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, bug, call_text, show, weight

API = {"residual_distribution": ("p_target", "p_draft"),
       "speculative_step": ARGS}


def _seed(rng):
    return int(rng.integers(2**31))


def _telling(kata, rng, bug_id, why, **ranges):
    found = telling(bug_id, _seed(rng), **ranges)
    assert found, f"no case tells {bug_id} apart"  # the checker's own fault, never the learner's
    steps(kata, found, why)


# --- residual_distribution ---------------------------------------------------------------------------

def _pairs(rng):
    """(p_target, p_draft) pairs: one row, a (gamma, V) block, a batch with leading dims, a large vocabulary."""
    return [(cases.distributions(rng, 1, 5)[0], cases.distributions(rng, 1, 5)[0]),
            (cases.distributions(rng, 3, 7), cases.distributions(rng, 3, 7)),
            (cases.distributions(rng, 6, 4).reshape(2, 3, 4), cases.distributions(rng, 6, 4).reshape(2, 3, 4)),
            (cases.distributions(rng, 1, 32000)[0], cases.distributions(rng, 1, 32000)[0])]


def test_residual_random_distributions(kata, ref, rng):
    for p_target, p_draft in _pairs(rng):
        residual(kata, ref, p_target, p_draft, "max(0, p_target - p_draft), divided by its sum along the last axis")


@bug("spec-residual-not-clamped")
def test_residual_has_no_negative_entries(kata, ref, rng):
    for _ in range(3):
        p_target, p_draft = cases.distributions(rng, 2, 5), cases.distributions(rng, 2, 5)
        residual(kata, ref, p_target, p_draft, "a token the draft over-proposes gets exactly 0 in the residual")


@bug("spec-residual-unnormalized")
def test_residual_rows_sum_to_one(kata, ref, rng):
    pt, pd, _ = dyadic_rejection(rng, 6, 3)
    other_t, other_d = cases.distributions(rng, 2, 6)
    p_target, p_draft = np.stack([pt, other_t]), np.stack([pd, other_d])  # (2, 6): a dyadic row, a random one
    residual(kata, ref, p_target, p_draft, "each row of the residual sums to 1: divide by its sum")


def test_residual_where_target_equals_draft(kata, ref, rng):
    same = cases.distributions(rng, 1, 5)[0]
    other = cases.distributions(rng, 2, 5)
    p_target, p_draft = np.stack([same, other[0]]), np.stack([same, other[1]])  # row 0 equal, row 1 not
    residual(kata, ref, p_target, p_draft, "where p_target equals p_draft the residual is all zero, and the "
              "contract returns p_target there (0 / 0 must not leak out as NaN)")


def test_residual_float32(kata, ref, rng):
    p_target = cases.distributions(rng, 3, 9).astype(np.float32)
    p_draft = cases.distributions(rng, 3, 9).astype(np.float32)
    residual(kata, ref, p_target, p_draft, "float32 probabilities: the same residual")


# --- speculative_step: what comes back ---------------------------------------------------------------

def test_step_returns_a_list_of_python_ints(kata, rng):
    case = draw_case(rng, gamma=(2, 2))
    call = call_text("speculative_step", **case)
    got = kata.speculative_step(*[case[a] for a in ARGS])
    if not isinstance(got, list) or not all(type(t) is int for t in got):
        kinds = sorted({type(t).__name__ for t in (got if isinstance(got, (list, tuple)) else [got])})
        raise Failure(f"{call} returned {show(got)} ({type(got).__name__} of {', '.join(kinds)}), expected a list "
                      "of Python ints: int(token) turns a NumPy integer into one, tokens.tolist() an array into a list")


@weight(2)
def test_step_random_cases(kata, rng):
    seed = _seed(rng)
    found = cases.random_cases(seed, 6, gamma=(1, 5), vocab=(3, 9)) + \
        cases.random_cases(seed, 6, gamma=(1, 5), vocab=(3, 9), reject_bias=2.0) + \
        cases.random_cases(seed, 1, gamma=(1, 2), vocab=(32000, 32000), reject_bias=2.0)
    steps(kata, found, "walk the drafted tokens: keep x while u_accept[i] < p_target[i, x] / p_draft[i, x]; at "
                        "the first rejection draw from the residual and stop; else draw a bonus from p_target[gamma]")


@bug("spec-ratio-inverted")
def test_accepts_with_the_ratio_target_over_draft(kata, rng):
    _telling(kata, rng, "spec-ratio-inverted", "accept x iff u_accept[i] < p_target[i, x] / p_draft[i, x]")


@bug("spec-accept-if-target-likes")
def test_acceptance_divides_by_the_draft(kata, rng):
    _telling(kata, rng, "spec-accept-if-target-likes", "the acceptance probability is min(1, p_target / p_draft)",
             gamma=(3, 5), vocab=(2, 4))


@bug("spec-greedy-accept")
def test_acceptance_is_random(kata, rng):
    _telling(kata, rng, "spec-greedy-accept", "a drafted token other than the target's argmax may be kept too",
             gamma=(1, 3))


@bug("spec-resample-target")
def test_rejection_draws_from_the_residual(kata, rng):
    _telling(kata, rng, "spec-resample-target", "after a rejection the token is drawn from the residual",
             reject_bias=3.0)


@bug("spec-residual-not-clamped")
def test_rejection_draws_from_a_clamped_residual(kata, rng):
    _telling(kata, rng, "spec-residual-not-clamped", "the residual is max(0, p_target - p_draft), normalised",
             reject_bias=3.0)


@bug("spec-residual-unnormalized")
def test_rejection_draws_from_a_normalised_residual(kata, rng):
    _telling(kata, rng, "spec-residual-unnormalized", "the residual is divided by its sum before the draw",
             reject_bias=3.0, vocab=(6, 10))


@bug("spec-no-bonus")
def test_all_accepted_draws_a_bonus_token(kata, rng):
    found = []
    for g in (1, 2, 4):
        case = dict(draw_case(rng, gamma=(g, g)))
        case["u_accept"] = np.zeros(g)  # 0 < any ratio: every drafted token is kept
        found.append(frozen(case))
    steps(kata, found, "with all gamma accepted, a bonus token is drawn from p_target[gamma]: gamma + 1 tokens")


@bug("spec-continues-after-reject")
def test_the_walk_stops_at_the_first_rejection(kata, rng):
    _telling(kata, rng, "spec-continues-after-reject", "nothing after the first rejection is tested or kept",
             gamma=(2, 4), reject_bias=1.0)


@bug("spec-rows-shifted")
def test_row_i_of_the_target_scores_token_i(kata, rng):
    _telling(kata, rng, "spec-rows-shifted", "p_target[i] scores draft token i; p_target[gamma] gives the bonus")


@bug("sample-off-by-one")
def test_draws_on_cumulative_boundaries(kata, rng):
    """u_sample exactly on a cumulative sum of the residual or of the bonus row: the draw goes right."""
    found = []
    for positive in (2, 3):
        pt, pd, x = dyadic_rejection(rng, 5, positive)
        res = np.maximum(pt - pd, 0) / np.maximum(pt - pd, 0).sum()
        cdf = np.cumsum(res)
        for u in (0.0, float(cdf[np.flatnonzero(res)[0]])):
            found.append(frozen({"p_draft": pd[None], "p_target": np.stack([pt, dyadic(rng, 5)]),
                                 "draft_tokens": [x], "u_accept": np.array([0.999]), "u_sample": u}))
    bonus = dyadic(rng, 5, zeros=1)
    bonus_cdf = np.cumsum(bonus)
    for u in (0.0, float(bonus_cdf[np.flatnonzero(bonus)[1]])):
        pd = dyadic(rng, 5)
        found.append(frozen({"p_draft": pd[None], "p_target": np.stack([pd, bonus]), "draft_tokens":
                             [int(np.argmax(pd))], "u_accept": np.array([0.5]), "u_sample": u}))
    steps(kata, found, "a draw takes the first index whose cumulative sum EXCEEDS u (u on a boundary goes right)")


# --- speculative_step: the precise rules ---------------------------------------------------------------

def test_uniform_on_the_accept_boundary(kata, rng):
    """u_accept exactly equal to the ratio (dyadic, exact): rejected, since acceptance is u < ratio."""
    found = []
    for _ in range(2):
        pt, pd, x = dyadic_rejection(rng, 4, 2, exact_ratio=True)
        ratio = pt[x] / pd[x]  # a multiple of a power of two: exact in float32 too
        found.append(frozen({"p_draft": pd[None], "p_target": np.stack([pt, dyadic(rng, 4)]), "draft_tokens": [x],
                             "u_accept": np.array([ratio]), "u_sample": 0.3}))
    steps(kata, found, "accepted iff u_accept < ratio: a uniform equal to the ratio rejects", name=False)


def test_ratio_at_least_one_always_accepts(kata, rng):
    found = []
    for g in (1, 3):
        case = dict(draw_case(rng, gamma=(g, g), vocab=(5, 5)))
        pt = np.array(case["p_target"])
        pt[:g] = case["p_draft"]  # ratio exactly 1 on every drafted token
        pt[0] = 0.5 * case["p_draft"][0] + 0.5 * np.eye(5)[case["draft_tokens"][0]]  # ratio > 1 at token 0
        case.update(p_target=pt, u_accept=np.full(g, 0.999))
        found.append(frozen(case))
    steps(kata, found, "a ratio >= 1 accepts whatever u_accept (every u in [0, 1) is below it)", name=False)


def test_gamma_zero(kata, rng):
    found = []
    for vocab in (3, 6):
        pt = cases.distributions(rng, 1, vocab)
        found.append(frozen({"p_draft": np.zeros((0, vocab)), "p_target": pt, "draft_tokens": [],
                             "u_accept": np.zeros(0), "u_sample": cases.clear_uniform(rng, np.cumsum(pt[0]))}))
    steps(kata, found, "gamma = 0: one token drawn from p_target[0]", name=False)


def test_draw_past_the_last_cumulative_sum(kata, rng):
    """u_sample past the last cumulative sum (ten 0.1s sum to 1 - 2**-53 in float64, and u = 1 - 2**-53): the
    draw falls back to the last token with p > 0, never to a last token of probability 0."""
    tail = np.array([0.1] * 10 + [0.0])  # (11,): its cumulative sums end at 1 - 2**-53, on u, never past it
    u = float(np.nextafter(1.0, 0.0))
    one_hot = np.eye(11)[10]  # a draft sure of token 10, which the target never gives: ratio 0, rejected
    found = [frozen({"p_draft": np.zeros((0, 11)), "p_target": tail[None], "draft_tokens": [],
                     "u_accept": np.zeros(0), "u_sample": u}),
             frozen({"p_draft": one_hot[None], "p_target": np.stack([tail, dyadic(rng, 11)]), "draft_tokens": [10],
                     "u_accept": np.array([0.5]), "u_sample": u}),
             frozen({"p_draft": tail[None], "p_target": np.stack([tail, tail]), "draft_tokens": [3],
                     "u_accept": np.array([0.5]), "u_sample": u})]
    steps(kata, found, "past the last cumulative sum a draw returns the last token with p > 0", name=False)


def test_target_equals_draft(kata, rng):
    found = []
    for g in (1, 3):
        case = dict(draw_case(rng, gamma=(g, g)))
        pt = np.array(case["p_target"])
        pt[:g] = case["p_draft"]
        case.update(p_target=pt, u_accept=np.array([cases.clear_uniform(rng, []) for _ in range(g)]))
        found.append(frozen(case))
    steps(kata, found, "where p_target equals p_draft every ratio is 1: every drafted token is kept", name=False)


def test_float32_inputs(kata, rng):
    seed = _seed(rng)
    found = cases.random_cases(seed, 4, gamma=(1, 4), vocab=(4, 12), dtype=np.float32, reject_bias=1.0) + \
        cases.random_cases(seed, 1, gamma=(2, 2), vocab=(1000, 1000), dtype=np.float32, reject_bias=2.0)
    steps(kata, found, "float32 probabilities: the same tokens", name=False)


def test_argument_forms(kata, rng):
    case = dict(draw_case(rng, gamma=(3, 3), reject_bias=1.0))
    as_lists = {**case, "u_accept": [float(u) for u in case["u_accept"]]}
    as_array_tokens = {**case, "draft_tokens": np.array(case["draft_tokens"], np.int64)}
    steps(kata, [frozen(as_lists)], "u_accept given as a list of floats", name=False)
    steps(kata, [frozen(as_array_tokens)], "draft_tokens given as an int array", name=False)
    steps(kata, [case], "called with keywords", name=False, keywords=True)


def test_shapes_that_disagree_raise(kata, rng):
    case = draw_case(rng, gamma=(2, 2), vocab=(4, 4))
    wrong = [("p_target with gamma rows (not gamma + 1)", {**case, "p_target": case["p_target"][:2]}),
             ("u_accept shorter than draft_tokens", {**case, "u_accept": case["u_accept"][:1]})]
    for what, bad in wrong:
        call = call_text("speculative_step", **bad)
        try:
            got = kata.speculative_step(*[bad[a] for a in ARGS])
        except LearnerError as error:
            if error.not_implemented or getattr(error, "type", None) == "ValueError":
                if error.not_implemented:
                    raise
                continue
            raise Failure(f"{call} raised {getattr(error, 'type', 'an error')}: {what} is a ValueError") from None
        raise Failure(f"{call} returned {show(got)}: {what} must raise ValueError")


# --- the property that matters: the output is distributed as the target's ------------------------------

@weight(2)
def test_first_token_is_distributed_as_the_target(kata, rng):
    for vocab in (3,):
        p_draft, p_target, grid_cases = integrate.drawn_grid(_seed(rng), 1, vocab, every_rule=True)
        evidence, answers = integrated(kata, grid_cases)
        dist = integrate.first_token_distribution(answers, [w for _, w in grid_cases], vocab)
        if np.abs(dist - p_target[0]).max() > integrate.TOLERANCE:
            case, got, right = first_wrong(evidence) or (grid_cases[0][0], answers[0], answers[0])
            named = evidence.named()
            table = distribution_table(p_target[0], dist)
            failure = step_failure(case, list(got), list(right), named, "the first new token must be distributed "
                                   "exactly as p_target[0], over draft tokens drawn from p_draft[0] and uniform u's")
            raise Failure(f"integrated over the drafted token and both uniforms ({len(grid_cases)} cells), the first "
                          f"new token is not distributed as p_target[0]:\n      {table}\n    one cell: "
                          f"{failure.message}", failure.bug, exact=failure.exact)


@weight(2)
def test_whole_output_is_distributed_as_the_target(kata, rng):
    """gamma = 2: every kept prefix is followed by a token distributed as that position's target row."""
    vocab = 3
    p_draft, p_target, grid_cases = integrate.drawn_grid(_seed(rng), 2, vocab, every_rule=False)
    evidence, answers = integrated(kata, grid_cases)
    weights = [w for _, w in grid_cases]
    wrong = [(k, prefix, dist, want) for k, prefix, dist, want in
             integrate.conditionals([c for c, _ in grid_cases], answers, weights, p_target)
             if not np.abs(dist - want).max() <= integrate.TOLERANCE]
    right = integrate.sequence_distribution([right_answer(c) for c, _ in grid_cases], weights)
    mine = integrate.sequence_distribution(answers, weights)
    extra = sorted(set(mine) - set(right))
    if not wrong and not extra:
        return
    first = first_wrong(evidence)
    failure = step_failure(*first, evidence.named(), "") if first else Failure("")
    if wrong:
        k, prefix, dist, want = wrong[0]
        title = f"token {k} after {list(prefix)} kept" if prefix else "token 0"
        what = distribution_table(want, dist, title)
    else:
        what = f"outputs the right rule never gives: {[list(t) for t in extra[:3]]} (probability " \
               f"{sum(mine[t] for t in extra):.4f})"
    raise Failure(f"integrated over drafted tokens and uniforms (gamma = 2, {len(grid_cases)} cells), the output is "
                  f"not distributed as the target's:\n      {what}\n    one cell: {failure.message}", failure.bug,
                  exact=failure.exact)


@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    """Arrays the file could write into: p_draft with exact zeros (an in-place clamp shows), draft_tokens a
    list and an int array, on a step that keeps every token and on one that rejects (the draw is written)."""
    random = dict(draw_case(rng, gamma=(3, 3), reject_bias=2.0))
    calls = []
    for case in (random, cases.with_zeros(rng), cases.with_zeros(rng, reject=True)):
        for tokens in (list(case["draft_tokens"]), np.array(case["draft_tokens"], np.int64)):
            given = [np.array(case[a]) if isinstance(case[a], np.ndarray) else case[a] for a in ARGS]
            calls.append(("speculative_step", kata.speculative_step, ARGS, given[:2] + [tokens] + given[3:]))
    zeros = cases.with_zeros(rng)
    for p_target, p_draft in ((random["p_target"][:3], random["p_draft"]), (zeros["p_target"][:3], zeros["p_draft"])):
        calls.append(("residual_distribution", kata.residual_distribution, ("p_target", "p_draft"),
                      [np.array(p_target), np.array(p_draft)]))
    unchanged(calls)

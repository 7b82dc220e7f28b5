"""What kata 14's hidden tests are run with: the calls into the learner's module, compared with the right
step, and the Failure each wrong answer raises (tests.py says which cases; this says how they are judged)."""

import numpy as np

from checker.hidden.speculative import variants
from checker.hidden.speculative.cases import ARGS
from checker.hidden.speculative.explain import Evidence, right_answer, step_failure, tokens_of
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, Suspects, as_array, call_text, expect_close, expect_float, expect_shape, show


def steps(kata, cases_, why="", name=True, keywords=False):
    """Run every case; fail on the first wrong answer, naming the bug whose variants reproduce them all."""
    evidence, first = Evidence(), None
    for case in cases_:
        args = [case[a] for a in ARGS]
        got = kata.speculative_step(**case) if keywords else kata.speculative_step(*args)
        tokens, right = tokens_of(got, case), list(right_answer(case))
        evidence.add(case, tokens, right)
        if first is None and tokens != right:
            first = (case, tokens, right)
    if first:
        raise step_failure(*first, evidence.named() if name else None, why)


def residual(kata, ref, p_target, p_draft, why="", bug_id=None):
    call = call_text("residual_distribution", p_target=p_target, p_draft=p_draft)
    got = as_array(kata.residual_distribution(p_target, p_draft), call)
    want = ref.residual_distribution(p_target, p_draft)
    expect_shape(got, want.shape, call)
    expect_float(got, call)
    rtol, atol = 1e-4, 1e-6
    if got.shape == want.shape and not np.allclose(got, want, rtol, atol) and \
            variants.proportional_to_difference(got, p_target, p_draft, 1e-4):
        raise Failure(f"{call} returned {_values(got)}, expected {_values(want)}: your residual has negative "
                      "entries, a multiple of p_target - p_draft: clamp it with max(0, .) before normalising "
                      "(it sums to 0 over a row, so its own sum is no denominator)", "spec-residual-not-clamped",
                      exact=True)
    suspects = Suspects(variants.RESIDUAL_VARIANTS, p_target, p_draft, rivals=variants.RESIDUAL_RIVALS)
    expect_close(got, want, call, suspects, bug_id, why, inputs=(p_target, p_draft), axes=("position", "token"))


def _values(array):
    return show(array) if array.size <= 12 else f"array{array.shape}"


def integrated(kata, grid_cases):
    evidence, answers = Evidence(), []
    for case, _ in grid_cases:
        tokens = tokens_of(kata.speculative_step(*[case[a] for a in ARGS]), case)
        evidence.add(case, tokens, right_answer(case))
        answers.append(tokens)
    return evidence, answers


def first_wrong(evidence):
    return next(((case, got, right) for case, got, right in evidence.calls if got != right), None)


def unchanged(calls):
    """Each (name, function, parameter names, arguments) called on copies; fail on the first argument the call
    changed (a list by value, an array by shape and values)."""
    for name, function, params, given in calls:
        try:
            _, after = function.keeping_args(*[a.copy() if hasattr(a, "copy") else a for a in given])
        except LearnerError as error:
            if error.not_implemented:
                raise
            continue  # a crash is another test's failure
        for param, before, now in zip(params, given, after):
            if isinstance(before, np.ndarray):
                same = isinstance(now, np.ndarray) and now.shape == before.shape and np.array_equal(now, before)
            else:
                same = now == before
            if not same:
                raise Failure(f"{call_text(name, **dict(zip(params, given)))} changed its argument {param} (was "
                              f"{show(before)}, now {show(now)}): build new arrays and lists (new = [], "
                              "np.maximum(a - b, 0)) and never write into the caller's", "mutates-input", exact=True)

"""The public checks of kata 01: `kata pack` copies `check` into a candidate's check.py (as
check_scores) with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    cases = []
    for lead in ([], [draw.randint(2, 4), draw.randint(2, 3)]):
        n_q, n_k, d_k = distinct(draw, 3)
        cases.append({"lead": lead, "n_q": n_q, "n_k": n_k, "d_k": d_k})
    return cases


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    lead, n_q, n_k, d_k = dims["lead"], dims["n_q"], dims["n_k"], dims["d_k"]
    got = module.attention_scores(random_array(*lead, n_q, d_k), random_array(*lead, n_k, d_k))
    expect_shape(f"attention_scores(q {(*lead, n_q, d_k)}, k {(*lead, n_k, d_k)})", got, (*lead, n_q, n_k))

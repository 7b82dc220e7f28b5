"""The public checks of kata 07: `kata pack` copies `check` into a candidate's check.py (as check_gqa) with
the cases that `cases` draws from the pack's seed. Shapes only, never values."""

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    cases = []
    for h_kv, group in ((draw.randint(2, 3), draw.randint(2, 3)), (1, draw.randint(2, 4))):  # grouped, multi-query
        n_q, d, d_v = distinct(draw, 3, 2, 7)
        cases.append({"b": draw.randint(1, 3), "h_kv": h_kv, "h_q": h_kv * group, "n_q": n_q,
                      "n_k": n_q + draw.randint(0, 3), "d": d, "d_v": d_v})
    return cases


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    b, h_q, h_kv, n_q, n_k, d, d_v = (dims[name] for name in ("b", "h_q", "h_kv", "n_q", "n_k", "d", "d_v"))
    k = random_array(b, h_kv, n_k, d)
    expect_shape(f"repeat_kv(k {(b, h_kv, n_k, d)}, {h_q // h_kv})", module.repeat_kv(k, h_q // h_kv),
                 (b, h_q, n_k, d))
    q, v = random_array(b, h_q, n_q, d), random_array(b, h_kv, n_k, d_v)
    for causal in (True, False):
        call = f"grouped_query_attention(q {(b, h_q, n_q, d)}, k {(b, h_kv, n_k, d)}, v {(b, h_kv, n_k, d_v)}, " \
               f"causal={causal})"
        expect_shape(call, module.grouped_query_attention(q, k, v, causal=causal), (b, h_q, n_q, d_v))
    try:
        module.grouped_query_attention(random_array(b, h_kv + 1, n_q, d), random_array(b, 2 * h_kv + 2, n_k, d),
                                       random_array(b, 2 * h_kv + 2, n_k, d_v))
    except ValueError:
        return
    raise Problem(f"grouped_query_attention with h_q = {h_kv + 1} and h_kv = {2 * h_kv + 2} returned, expected "
                  "ValueError: h_q must be a multiple of h_kv")

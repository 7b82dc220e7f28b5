"""Hidden tests for kata 01: attention_scores(q, k) = q @ k^T / sqrt(d_k).

Shapes are chosen so the classic bugs cannot hide: n_q != n_k != d_k, batches whose sizes make a
full `k.T` run silently, integer inputs whose scores are not whole numbers.
"""

import numpy as np

from checker.hidden.scores import variants
from checker.engine.kept import expect_kept
from checker.engine.testkit import Failure, Suspects, as_array, bug, call_text, expect_close, expect_float, expect_shape, \
    expect_unchanged, full_transpose_error, full_transpose_failure, scale_between, show, variants_in
from checker.sandbox import LearnerError

API = {"attention_scores": ("q", "k")}


VARIANTS = variants_in(vars(variants), of="scores")
DIVISORS = variants_in(vars(variants), of="divisor")


def _run(kata, ref, q, k):
    """The learner's scores, the right ones (in float64), and the call as text. The shape error a batched k.T
    raises (NumPy's or PyTorch's words for these very shapes) names batch-transpose, not left a bare crash."""
    call = call_text("attention_scores", q=q, k=k)
    try:
        got = as_array(kata.attention_scores(q, k), call)
    except LearnerError as error:
        if error.not_implemented or not full_transpose_error(error.message, np.shape(q), np.shape(k)):
            raise
        raise full_transpose_failure(call, error, np.shape(k)) from None
    return got, ref.attention_scores(np.asarray(q, np.float64), np.asarray(k, np.float64)), call


def _compare(kata, got, want, call, q, k, why=""):
    """Fail unless got == want; name truncation and a wrong scale by what they do, other bugs by their output."""
    integers = all(np.asarray(x).dtype.kind in "iub" for x in (q, k))
    if integers and got.dtype.kind in "iub" and not np.allclose(got, want):
        _truncated(got, want, call)
    c = scale_between(got, want)
    if c is not None and not np.isclose(c, 1, rtol=1e-4):
        _name_scale(kata, c, call, np.shape(q)[-1], np.shape(q)[-2], np.shape(k)[-2])
    if integers and got.shape == want.shape and any(np.allclose(got, w) for w in (np.trunc(want), np.floor(want))):
        _truncated(got, want, call)
    expect_close(got, want, call, Suspects(VARIANTS, q, k, up_to_scale=True), why=why,
                 inputs=(np.asarray(q), np.asarray(k)))


# --- shape first ---------------------------------------------------------------------------------

def test_shape(kata, ref, rng):
    q, k = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))  # n_q=3, n_k=5, d_k=4
    got, want, call = _run(kata, ref, q, k)
    if got.shape == (5, 3):
        raise Failure(f"{call} returned shape (5, 3), expected (3, 5): one row per query, one column per key "
                      "-> this is k @ q^T", "keys-against-queries")
    expect_shape(got, want.shape, call)


def test_values(kata, ref, rng):
    q, k = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k)


# --- one bug class a test -------------------------------------------------------------------------

def _truncated(got, want, call):
    raise Failure(f"{call} returned {got.dtype} scores {show(got.ravel()[:4])}..., expected "
                  f"{show(want.ravel()[:4])}...: integer scores were truncated", "integer-truncation", exact=True)


# (n_q, n_k, d_k) of two more inputs, each size different from the tests' and from each other's: every scale bug
# gives its own factor on both, and none of them is a rounded sqrt(d_k). A factor that matched one bug on one input
# (sqrt(d_k + 1) is sqrt(n_k) when n_k = d_k + 1) names it only if it matches the same bug on these too.
TELLING_SIZES = ((2, 7, 5), (6, 3, 11))


def _confirmed(kata, divisor):
    """Does the learner's scale follow `divisor` on the telling sizes too (q, k drawn from a generator of their own,
    so the test's own draws stay as they are)?"""
    rng = np.random.default_rng(2017)
    for n_q, n_k, d_k in TELLING_SIZES:
        q, k = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k))
        try:
            got = np.asarray(kata.attention_scores(q, k))
        except LearnerError:
            return False
        c = scale_between(got, q @ k.T / np.sqrt(d_k)) if got.shape == (n_q, n_k) else None
        if c is None or not np.isclose(c, np.sqrt(d_k) / divisor(d_k, n_q, n_k), rtol=1e-4):
            return False
    return True


def _name_scale(kata, c, call, d_k, n_q, n_k):
    """Scores that are c times the right ones: say which scale bug gives exactly c, on this input and on inputs of
    other sizes (the sizes the bug is about: d_k, n_q, n_k)."""
    for divisor in DIVISORS:
        try:
            number = divisor(d_k, n_q, n_k)
        except variants.Coincidence:  # this shape cannot tell that bug from a rounded sqrt(d_k)
            continue
        if np.isclose(c, np.sqrt(d_k) / number, rtol=1e-4) and _confirmed(kata, divisor):
            why = " ".join(divisor.__doc__.split())
            raise Failure(f"{call} returned scores {c:.4g}x the expected ones (d_k = {d_k}, n_q = {n_q}, "
                          f"n_k = {n_k}): {why}", divisor.variant_of, exact=True)
    raise Failure(f"{call} returned scores {c:.4g}x the expected ones: the scale must be "
                  f"1/sqrt(d_k) = 1/sqrt({d_k}) = {1 / np.sqrt(d_k):.4g}")


def test_scale(kata, ref, rng):
    n, d_k = 4, 9  # n_q = n_k = n != d_k: every scale bug gives its own factor
    q, k = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k))
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k)


@bug("keys-against-queries")
def test_rows_are_queries(kata, ref, rng):
    q, k = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))  # square: a transposed table keeps its shape
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k)


@bug("batch-transpose")
def test_batched(kata, ref, rng):
    # b = n_k = d_k = 3: a full k.T then runs without error, so only the values can tell.
    q, k = rng.normal(size=(3, 2, 3)), rng.normal(size=(3, 3, 3))
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k, why="each batch's queries must meet that batch's keys")


def test_batched_heads(kata, ref, rng):
    q, k = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5))  # (b, h, n, d_k)
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k)


def test_leading_dims_broadcast(kata, ref, rng):
    # either side may carry more leading axes, or a size-1 axis that the other side stretches
    for q_shape, k_shape in (((2, 3, 4, 6), (3, 5, 6)), ((4, 6), (2, 3, 5, 6)), ((2, 1, 4, 6), (1, 3, 5, 6))):
        q, k = rng.normal(size=q_shape), rng.normal(size=k_shape)
        got, want, call = _run(kata, ref, q, k)
        _compare(kata, got, want, call, q, k, why="leading dimensions broadcast, as they do in q @ k")


def test_large_scores(kata, ref, rng):
    # long vectors: scores in the hundreds and thousands, as unnormalised embeddings give; nothing clips them
    q, k = rng.normal(size=(2, 3, 16)) * 30, rng.normal(size=(2, 4, 16)) * 30
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k, why=f"scores this large (up to {np.abs(want).max():.0f}) are kept as they are")


@bug("reshape-as-transpose")
def test_transpose_not_reshape(kata, ref, rng):
    q, k = rng.normal(size=(3, 4)), rng.normal(size=(6, 4))  # n_k != d_k: a reshape still runs
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k)


@bug("integer-truncation")
def test_integer_inputs(kata, ref, rng):
    q, k = rng.integers(-3, 4, size=(3, 3)), rng.integers(-3, 4, size=(4, 3))  # sqrt(3): no score is whole
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k)
    expect_float(got, call)


def test_nested_lists(kata, ref):
    q = [[1, 2, 0], [0, 1, 3]]  # d_k = 3: no score is a whole number, and none a multiple of another's
    k = [[2, 1, 1], [1, 0, 2], [0, 3, 1], [1, 1, 1]]
    got, want, call = _run(kata, ref, q, k)
    _compare(kata, got, want, call, q, k)


def test_worked_example(kata, ref):
    q = np.array([[2.0, 1.0], [0.0, 1.0], [1.0, 1.0]])  # "order 4471 shipped": X @ W_Q
    k = np.array([[2.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # X @ W_K
    abc = np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])  # the A/B/C tokens, as queries and keys alike
    for queries, keys in ((q, k), (abc, abc)):
        got, want, call = _run(kata, ref, queries, keys)
        _compare(kata, got, want, call, queries, keys)


def test_float32(kata, ref, rng):
    q, k = rng.normal(size=(2, 3, 8)).astype(np.float32), rng.normal(size=(2, 5, 8)).astype(np.float32)
    got, want, call = _run(kata, ref, q, k)
    expect_float(got, call)
    _compare(kata, got, want, call, q, k)


def test_inputs_unchanged(kata, rng):
    for dtype in (np.float64, np.float32):  # a no-copy np.asarray keeps the caller's array for some dtypes only
        q, k = rng.normal(size=(3, 4)).astype(dtype), rng.normal(size=(5, 4)).astype(dtype)
        _, after = kata.attention_scores.keeping_args(q.copy(), k.copy())
        expect_unchanged(call_text("attention_scores", q=q, k=k), {"q": q, "k": k}, after,
                         advice="work on a copy, never the caller's array")


def _wrapped(q, k):
    """q . k^T / sqrt(d_k) with the product computed in the inputs' own integer type, wrapping around on overflow
    (NumPy's matmul of int8 arrays): what code that never casts small integers computes."""
    dtype = np.result_type(np.asarray(q).dtype, np.asarray(k).dtype)
    product = np.asarray(q).astype(np.int64) @ np.swapaxes(np.asarray(k).astype(np.int64), -1, -2)
    return product.astype(dtype).astype(np.float64) / np.sqrt(np.shape(q)[-1])


def test_small_integer_types(kata, ref, rng):
    # values up to +-120 over d_k = 5: products reach 72,000, far past int8 and int16, and uint8 too; the
    # result must be the true scores as floats (SPEC: integers of any width, computed without overflow)
    for dtype in (np.int8, np.uint8, np.int16):
        low = 0 if dtype == np.uint8 else -120
        q, k = rng.integers(low, 121, size=(3, 5)).astype(dtype), rng.integers(low, 121, size=(4, 5)).astype(dtype)
        got, want, call = _run(kata, ref, q, k)
        if got.shape == want.shape and not np.allclose(got, want) and np.allclose(got, _wrapped(q, k)):
            raise Failure(f"{call} returned scores {show(got.ravel()[:3])}..., expected {show(want.ravel()[:3])}...: "
                          f"the products were computed in {np.dtype(dtype).name} and wrapped around (the largest "
                          f"{np.dtype(dtype).name} is {np.iinfo(dtype).max}); cast to float before multiplying")
        expect_float(got, call)
        _compare(kata, got, want, call, q, k, why=f"{np.dtype(dtype).name} inputs give the true scores, without overflow")


def test_results_stay_unchanged(kata, rng):
    # a result must not change because of a later call: keep the first, read it again after a second
    for dtype in (np.float64, np.float32):
        q1, k1, q2, k2 = (rng.normal(size=shape).astype(dtype) for shape in ((3, 4), (5, 4), (3, 4), (5, 4)))
        expect_kept(kata.attention_scores, (q1, k1), (q2, k2), call_text("attention_scores", q=q1, k=k1),
                    "a second call on other inputs")

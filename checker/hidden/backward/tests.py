"""Hidden tests for kata 11: softmax_backward(y, dy, axis=-1) and attention_backward(q, k, v, d_out, mask=None).

The right gradients are the reference's (checked against PyTorch autograd and finite differences in the
project's own tests). Shapes are chosen so the classic bugs cannot hide: n_q != n_k != d != d_v, batches and
heads, a scale sqrt(d) equal to no other size, square self-attention where an untransposed P or swapped operands
still multiply, padding masks, queries with no visible key, scores near +800. A failure says which of dq, dk and
dv is wrong and in which rows; a bug is named only when its variant gives all three gradients and no mistake
outside the catalogue does (a global max shift, say). Memory is part of the contract: one call's peak, as n
grows, tells an n x n Jacobian per slice apart from the product with dy.
"""

import numpy as np

from checker.hidden.backward.running import as_triple, call_of, causal, check, expect_shapes, inputs, judge, learner, \
    queries_for
from checker.hidden.backward.variants import SOFTMAX_BACKWARD_VARIANTS
from checker.engine.testkit import Failure, Suspects, as_array, bug, call_text, changed, close, expect_close, \
    expect_float, expect_shape, tolerance, weight

try:  # the kernel's peak since hello never falls: a test reading it runs first in a child of its own (sandbox)
    from checker.engine.testkit import measured
except ImportError:  # figures of the call alone (tracemalloc in the child): nothing to mark
    def measured(test):
        return test

API = {"softmax_backward": ("y", "dy", "axis"), "attention_backward": ("q", "k", "v", "d_out", "mask")}
JVP = "dx = y * (dy - sum(dy * y, axis, keepdims=True))"


# --- softmax_backward ------------------------------------------------------------------------------------

def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _softmax_call(y, dy, axis=-1):
    return call_text("softmax_backward", y=y, dy=dy, **({"axis": axis} if axis != -1 else {}))


def _check_softmax(kata, ref, y, dy, axis=-1, why=JVP, rule=None):
    call = _softmax_call(y, dy, axis)
    got = as_array(kata.softmax_backward(y, dy, *((axis,) if axis != -1 else ())), call)
    want = ref.softmax_backward(np.asarray(y, np.float64), np.asarray(dy, np.float64), axis)
    expect_shape(got, want.shape, call, why="dx has the shape of y")
    expect_float(got, call)
    named = rule(got, want) if rule else None
    if named:
        raise Failure(f"{call}: {named[1]}", named[0], exact=True, nonfinite=True)
    y64, dy64 = np.asarray(y, np.float64), np.asarray(dy, np.float64)
    expect_close(got, want, call, Suspects(SOFTMAX_BACKWARD_VARIANTS, y64, dy64, axis), why=why, inputs=(y, dy))


def _in_both_precisions(*arrays):
    """The arrays as they are (float64), then cast to float32: every edge case meets float32 too, where a
    floor such as 1e-300 rounds to 0."""
    return [arrays, tuple(np.asarray(x, np.float32) for x in arrays)]


def test_softmax_backward_values(kata, ref, rng):
    y = _softmax(rng.normal(size=(2, 3, 5)) * 2)
    _check_softmax(kata, ref, y, rng.normal(size=(2, 3, 5)))


@bug("softmax-grad-no-sum")
def test_constant_dy_gives_zero(kata, ref, rng):
    # dy the same along each slice: adding a constant to every output moves no input (the weights sum to 1)
    y = _softmax(rng.normal(size=(3, 4)) * 2)
    dy = np.repeat(rng.normal(size=(3, 1)) * 3, 4, axis=1)
    _check_softmax(kata, ref, y, dy, why="with dy the same along a slice dx is 0: the weights always sum to 1")


@bug("softmax-grad-diagonal")
def test_one_hot_dy(kata, ref, rng):
    # dy = e_j: dx is row j of the Jacobian, y_j * (1 - y_j) at j and -y_i * y_j elsewhere
    y = _softmax(rng.normal(size=(2, 5)))
    dy = np.zeros((2, 5))
    dy[0, 1], dy[1, 3] = 1.0, 1.0
    _check_softmax(kata, ref, y, dy, why="with dy = e_j, dx_i = -y_i * y_j for i != j: the Jacobian is not diagonal")


@bug("softmax-grad-wrong-axis")
def test_softmax_backward_axis(kata, ref, rng):
    x = rng.normal(size=(3, 4, 5)) * 2
    for axis in (0, 1, -2):
        _check_softmax(kata, ref, _softmax(x, axis), rng.normal(size=x.shape), axis,
                       why=f"the softmax normalised axis {axis}: the sum runs along it")


def _nan_in_empty_slices(y):
    def rule(got, want):
        empty = ~y.any(axis=-1)
        nan = np.isnan(got).any(axis=-1)
        if nan.any() and not (nan & ~empty).any() and close(got[~empty], want[~empty], *tolerance(got)).all():
            return "full-row-nan", ("NaN in the slices where y is all zero (a query with no visible key), right "
                                    "elsewhere: dx is y * (...), 0 there; nothing to divide by y or its sum")
        return None

    return rule


def test_softmax_backward_all_zero_slice(kata, ref, rng):
    y = _softmax(rng.normal(size=(2, 3, 4)))
    y[1, 0] = 0.0  # a query with no visible key: softmax gives zeros
    for y_in, dy in _in_both_precisions(y, rng.normal(size=y.shape)):
        _check_softmax(kata, ref, y_in, dy, why="a slice where y is 0 gets dx = 0", rule=_nan_in_empty_slices(y))


def test_softmax_backward_float32(kata, ref, rng):
    y = _softmax(rng.normal(size=(2, 3, 6))).astype(np.float32)
    _check_softmax(kata, ref, y, rng.normal(size=y.shape).astype(np.float32))


@bug("mutates-input")
def test_softmax_backward_unchanged(kata, rng):
    for dtype in (np.float64, np.float32):
        y, dy = (_softmax(rng.normal(size=(2, 3, 4))).astype(dtype), rng.normal(size=(2, 3, 4)).astype(dtype))
        _, after = kata.softmax_backward.keeping_args(y.copy(), dy.copy(), 1)
        _unchanged(_softmax_call(y, dy, 1), {"y": y, "dy": dy}, after)


def _unchanged(call, named, after):
    for (name, before), now in zip(named.items(), after):
        if isinstance(before, np.ndarray) and not np.array_equal(before, np.asarray(now)):
            change = f" ({changed(before, np.asarray(now))})" if np.shape(now) == before.shape else ""
            raise Failure(f"{call} changed its argument {name}{change}: work on new arrays, never the caller's",
                          "mutates-input", exact=True)


# --- memory: the Jacobian-vector product, never the Jacobian ------------------------------------------------

MEMORY_SIZES = (256, 3000)  # n of one slice: a float64 n x n Jacobian is 0.5 MiB, then 69 MiB
# Bytes of peak growth per cell an n x n table per slice gains: a float64 Jacobian adds 8, a float32 one 4; the
# product with dy holds a few arrays of n numbers (under 0.01 a cell between these sizes).
JACOBIAN_BYTES = 1.5


def _peak_bytes(function, *args):
    """(result, figures["peak_bytes"]: the extra bytes the call held at its peak). The one place a figure comes
    from: `measuring` (the kernel's accounting of the child once the sandbox reads it, VmHWM since hello,
    out of the learner's reach). That peak never falls, so the memory test runs first in its child
    (`measured`) and calls each function at the small size first: the growth to the large one is then the
    large call's own, whichever way the figure is taken."""
    got, figures = function.measuring(*args)
    return got, figures["peak_bytes"]


def _memory_growth(peaks, sizes, slices):
    short, long = sizes
    return (peaks[1] - peaks[0]) / (slices * (long ** 2 - short ** 2))


def _jacobian_failure(call, peaks, per_cell, slices):
    short, long = MEMORY_SIZES
    return Failure(f"{call} held {peaks[1] / 2**20:.2f} MiB at its peak with n = {long}, {peaks[0] / 2**20:.2f} MiB "
                   f"with n = {short}: {per_cell:.1f} bytes more for each cell of an n x n table per slice "
                   f"({slices} slice{'s' * (slices > 1)}), so the Jacobian was built; right numbers, but "
                   f"{JVP} needs O(n) per slice", "softmax-jacobian-materialized", exact=True)


def _values_first(check):
    try:
        check()
    except Failure as failure:  # a values mistake, told as one: memory is judged only on right numbers
        raise Failure(f"values wrong, memory not judged: {failure.message}", failure.bug, exact=failure.exact,
                      nonfinite=failure.nonfinite) from None


# --- attention_backward: shape first, then values -------------------------------------------------------------

@bug("batch-transpose")
def test_shapes(kata, ref, rng):
    q, k, v, d_out = inputs(rng, (2, 3), 4, 6, 5, 7)  # b=2, h=3, n_q=4, n_k=6, d=5, d_v=7
    call = call_of(q, k, v, d_out)
    got = as_triple(learner(kata.attention_backward, call, (q, k, v, d_out), None), call)
    want = ref.attention_backward(q, k, v, d_out)
    expect_shapes(got, want, (q, k, v), call)


@bug("missing-scale")
def test_values_without_mask(kata, ref, rng):
    check(kata, ref, *inputs(rng, (2, 3), 4, 6, 5, 7), why="no mask: every query sees every key")


def test_worked_example(kata, ref):
    # "order 4471 shipped" as kata 03 (its queries, keys and values), d_out = ones
    q, k, v = (np.array(x, float) for x in ([[2, 1], [0, 1], [1, 1]], [[2, 1], [0, 1], [1, 0]], [[3, 0], [0, 4], [1, 1]]))
    check(kata, ref, q, k, v, np.ones((3, 2)), causal(3, 3), "causal mask (3, 3)")


@bug("grad-missing-scale")
def test_scale(kata, ref, rng):
    # d = 9: the scale sqrt(d) = 3 is no other size of the call (n_q = 2, n_k = 5, d_v = 4, batch 2), nor the 2 of a
    # doubled term; a factor 3 in softmax_backward is told apart by asking softmax_backward itself
    check(kata, ref, *inputs(rng, (2,), 2, 5, 9, 4), why="dq and dk carry the forward's 1/sqrt(d)")


@bug("grad-dv-not-transposed")
def test_self_attention(kata, ref, rng):
    # n_q = n_k: an untransposed P still multiplies d_out here, and swapped operands still fit
    check(kata, ref, *inputs(rng, (2,), 5, 5, 3, 4), causal(5, 5), "causal mask (5, 5)",
           why="dv = P^T . d_out: key j gathers d_out from the queries that saw it")


@bug("grad-dq-dk-swapped")
def test_self_attention_heads(kata, ref, rng):
    check(kata, ref, *inputs(rng, (2, 3), 6, 6, 4, 5), why="dq = dS . k / sqrt(d), dk = dS^T . q / sqrt(d)")


@bug("backward-ignores-mask")
@weight(2)
def test_mask_blocks_gradient(kata, ref, rng):
    keep = np.array([[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]], bool)[:, None, None, :]  # example 1: keys 0-1 are padding
    mask = causal(3, 5) & keep  # (2, 1, 3, 5): every query still sees a key
    for args in _in_both_precisions(*inputs(rng, (2, 2), 3, 5, 6, 4)):
        check(kata, ref, *args, mask, "causal mask (3, 5) & padding (2, 1, 1, 5)",
              why="a blocked (query, key) pair passes no gradient")


@bug("mask-after-softmax")
def test_mask_before_softmax(kata, ref, rng):
    q, k, v, d_out = inputs(rng, (2,), 2, 5, 6, 3)
    mask = causal(2, 5)  # query 0 may not see key 4
    check(kata, ref, q, k, v, d_out, mask, "causal mask (2, 5)",
           why="the recomputed weights are masked before the softmax, as kata 03")
    # the blocked key scores 800 above the visible ones: a softmax before the mask gives it all the weight
    q = queries_for(np.where(mask, 0.0, 800.0) + rng.normal(size=(2, 2, 5)), k)
    check(kata, ref, q, k, v, d_out, mask, "causal mask (2, 5), query 0's blocked key scoring 800 above the rest",
           why="the mask wins whatever the scores are: blocked scores are -inf before the softmax")


@bug("full-row-nan")
@weight(2)
def test_no_visible_key(kata, ref, rng):
    # b = 6, n_q = 5, n_k = 2, d = 4, d_v = 3; key 1 scores 800 above key 0, so query 3, which sees key 0 only,
    # tells a softmax masked before from one masked after (and renormalised: 0 / 0 there)
    k, v, d_out = rng.normal(size=(6, 2, 4)), rng.normal(size=(6, 2, 3)), rng.normal(size=(6, 5, 3))
    q = queries_for(np.array([0.0, 800.0]) + rng.normal(size=(6, 5, 2)), k)
    for args in _in_both_precisions(q, k, v, d_out):  # a floor such as 1e-300 is 0 in float32: 0 / 0 there
        check(kata, ref, *args, causal(5, 2), "causal mask (5, 2): queries 0-2 see no key, key 1 scores 800 "
              "above key 0", why="a query with no visible key has a zero dq row and adds nothing to dk or dv")


@bug("full-row-uniform")
def test_padding_mask(kata, ref, rng):
    keep = np.array([[1, 1, 1, 1], [0, 0, 1, 1]], bool)[:, None, None, :]  # example 1: keys 0-1 are padding
    for args in _in_both_precisions(*inputs(rng, (2, 2), 4, 4, 5, 3)):
        check(kata, ref, *args, causal(4, 4) & keep, "causal mask (4, 4) & padding (2, 1, 1, 4): queries "
              "0-1 of example 1 see no key", why="a query with no visible key passes no gradient")


@bug("no-max-shift")
def test_large_scores(kata, ref, rng):
    # queries 0-1 score about +800 against every key (exp overflows without the shift), queries 2-3 about 0
    k, v = rng.normal(size=(2, 3, 5)), rng.normal(size=(2, 3, 2))
    scores = np.array([[800.0], [800.0], [0.0], [0.0]]) + rng.normal(size=(2, 4, 3))
    q = queries_for(scores, k)
    for args in _in_both_precisions(q, k, v, rng.normal(size=(2, 4, 2))):
        check(kata, ref, *args, why="queries 0-1 score about +800, 2-3 about 0: the recomputed softmax stays "
              "finite for any score")


def test_shared_keys(kata, ref, rng):
    # k and v shared by every example and head, a key-padding mask (2, 1, 1, n_k): their gradients are summed back
    q, d_out = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 4, 2))
    k, v = rng.normal(size=(6, 5)), rng.normal(size=(6, 2))
    keep = np.ones((2, 1, 1, 6), bool)
    keep[1, ..., 4:] = False
    check(kata, ref, q, k, v, d_out, keep, "padding (2, 1, 1, 6)",
           why="k (6, 5) and v (6, 2) are shared: dk and dv sum over every example and head")


def test_float32(kata, ref, rng):
    q, k, v, d_out = (x.astype(np.float32) for x in inputs(rng, (2, 2), 3, 5, 4, 6))
    check(kata, ref, q, k, v, d_out, causal(3, 5), "causal mask (3, 5)")


@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    for dtype in (np.float64, np.float32):  # a no-copy np.asarray keeps the caller's array for some dtypes only
        q, k, v, d_out = (x.astype(dtype) for x in inputs(rng, (2,), 5, 3, 4, 2))
        mask = causal(5, 3)  # queries 0-1 see no key: some code edits the mask just for those
        args = (q, k, v, d_out, mask)
        call = call_of(q, k, v, d_out, mask, "causal mask (5, 3)")
        _, after = kata.attention_backward.keeping_args(*(a.copy() for a in args))
        _unchanged(call, dict(zip(API["attention_backward"], args)), after)


@bug("softmax-jacobian-materialized")
@weight(3)
@measured
def test_memory(kata, ref, rng):
    # one child for both functions (the peak never falls): softmax_backward at both sizes, then attention_backward
    # at both; a right softmax_backward leaves the peak far below what an attention Jacobian adds
    peaks = []
    for n in MEMORY_SIZES:
        y, dy = _softmax(rng.normal(size=(1, n))), rng.normal(size=(1, n))
        got, peak = _peak_bytes(kata.softmax_backward, y, dy)
        call = _softmax_call(y, dy)
        _values_first(lambda: expect_close(as_array(got, call), ref.softmax_backward(y, dy), call, inputs=(y, dy)))
        peaks.append(peak)
    per_cell = _memory_growth(peaks, MEMORY_SIZES, 1)
    if per_cell > JACOBIAN_BYTES:
        raise _jacobian_failure("softmax_backward(y (1, n), dy (1, n))", peaks, per_cell, 1)
    peaks, n_q = [], 1  # one query (a decode step): everything right grows like n_k, a Jacobian like n_k^2
    for n_k in MEMORY_SIZES:
        q, k, v, d_out = inputs(rng, (), n_q, n_k, 2, 2)
        got, peak = _peak_bytes(kata.attention_backward, q, k, v, d_out)
        call = call_of(q, k, v, d_out)
        _values_first(lambda: judge(as_triple(got, call), ref.attention_backward(q, k, v, d_out), call, q, k, v,
                                    d_out, np.ones((n_q, n_k), bool)))
        peaks.append(peak)
    per_cell = _memory_growth(peaks, MEMORY_SIZES, n_q)
    if per_cell > JACOBIAN_BYTES:
        raise _jacobian_failure("attention_backward(q (1, 2), k (n, 2), v (n, 2), d_out (1, 2))", peaks, per_cell, n_q)

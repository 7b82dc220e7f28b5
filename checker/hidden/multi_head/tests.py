"""Hidden tests for kata 04: split_heads, merge_heads and multi_head_attention.

Shapes are chosen so the classic bugs cannot hide: b > 1 and b != h (heads folded in the wrong order
mix examples, and change the shape), h > 1, n != h, d_head != n, n != d_model; weights are random, not
symmetric, and scaled so the softmax is far from one-hot (a wrong scale changes the weights). Split and
merge are checked on their own and again through multi_head_attention, which may have inlined them.
"""

import numpy as np

from checker.hidden.multi_head import variants as mha_variants
from checker.hidden.multi_head.variants import MERGE_VARIANTS, MHA_VARIANTS, SPLIT_VARIANTS
from checker.engine.kept import expect_kept
from checker.engine.telling import scale_confirmation
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, Suspects, WeightGrid, as_array, bug, call_text, close, expect_close, \
    expect_float, expect_shape, expect_unchanged, first_difference, full_transpose_error, full_transpose_failure, \
    one_array, show, tolerance

API = {"split_heads": ("x", "n_heads"), "merge_heads": ("x",),
       "multi_head_attention": ("x", "w_q", "w_k", "w_v", "w_o", "n_heads", "causal")}
WEIGHT_NAMES = ("w_q", "w_k", "w_v", "w_o")


# --- running and comparing ----------------------------------------------------------------------

def _inputs(rng, b, n, d_model):
    """x and four weights: random, not symmetric, scaled so each score has a spread near 1."""
    x = rng.normal(size=(b, n, d_model))
    return x, tuple(rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in WEIGHT_NAMES)


def _same(got, want):
    return got.shape == want.shape and close(got, want, *tolerance(got, want)).all()


def _each_origin(source, piece, rtol, atol):
    """`x[0, 0, 0, 0], x[0, 1, 0, 0], ...`: where each number of a short piece sits; else the numbers."""
    places = [np.flatnonzero(close(source.ravel(), value, rtol, atol)) for value in piece]
    if len(piece) > 4 or any(len(found) != 1 for found in places):
        return show(piece)
    indices = (np.unravel_index(int(found[0]), source.shape) for found in places)
    return ", ".join("x[" + ", ".join(str(int(i)) for i in index) + "]" for index in indices)


def _origin(source, piece, rtol, atol):
    """Where in `source` the numbers of `piece` sit, as `x[0, 1, 4:8]`; else each number's place, or the numbers."""
    flat = source.ravel()
    starts = np.flatnonzero(close(flat, piece[0], rtol, atol))
    step = 1
    if len(piece) > 1 and len(starts) == 1:
        steps = np.flatnonzero(close(flat, piece[1], rtol, atol)) - starts[0]
        step = int(steps[0]) if len(steps) == 1 else 0
    if len(starts) != 1 or step < 1:
        return _each_origin(source, piece, rtol, atol)
    *row, first = (int(i) for i in np.unravel_index(int(starts[0]), source.shape))
    last = first + step * (len(piece) - 1)
    if last >= source.shape[-1] or not close(flat[starts[0]:starts[0] + step * len(piece):step], piece,
                                             rtol, atol).all():
        return _each_origin(source, piece, rtol, atol)
    if step == 1 and first == 0 and len(piece) == source.shape[-1] and source.ndim == 4:
        example, head, token = row  # a whole row of heads (b, h, n, d_head)
        return f"x[{example}, {head}, {token}] (head {head} of token {token}, example {example})"
    if step == 1:
        channels = f"{first}:{last + 1}"
    else:
        channels = f"{first}:{'' if last + step >= source.shape[-1] else last + 1}:{step}"
    return "x[" + ", ".join([str(i) for i in row] + [channels]) + "]"


def _compare_layout(got, want, call, source, suspects, piece_name):
    """split and merge only move numbers: say where the first misplaced piece came from, and why.

    `piece_name(index, d_head)` names a piece of the result and its verb: "head 1 of token 0 (example 0) holds".
    """
    rtol, atol = tolerance(got, source)
    if got.shape == want.shape and close(got, want, rtol, atol).all():
        return
    if got.shape != want.shape:
        expect_close(got, want, call, suspects, inputs=(source,))  # a variant that changes the shape, or none
    d_head = source.shape[-1] if source.ndim == 4 else want.shape[-1]
    got_pieces = got.reshape(*got.shape[:-1], -1, d_head)
    want_pieces = want.reshape(*want.shape[:-1], -1, d_head)
    wrong = ~close(got_pieces, want_pieces, rtol, atol).all(axis=-1)
    index = tuple(int(i) for i in np.argwhere(wrong)[0])
    detail = (f"{piece_name(index, d_head)} {_origin(source, got_pieces[index], rtol, atol)}, "
              f"expected {_origin(source, want_pieces[index], rtol, atol)}")
    matched = suspects.match(got, want, rtol, atol)
    if matched:
        raise Failure(f"{call}: {detail}: {matched[1]}", matched[0], exact=True)
    raise Failure(f"{call}: {detail}")


def _head_piece(index, d_head):
    example, head, token, _ = index
    return f"head {head} of token {token} (example {example}) holds"


def _token_piece(index, d_head):
    example, token, head = index
    return f"channels {head * d_head}:{(head + 1) * d_head} of token {token} (example {example}) hold"


def _check_split(kata, ref, x, n_heads):
    call = call_text("split_heads", x=x, n_heads=n_heads)
    got = as_array(kata.split_heads(x, n_heads), call)
    _compare_layout(got, ref.split_heads(x, n_heads), call, x, Suspects(SPLIT_VARIANTS, x, n_heads), _head_piece)


def _check_merge(kata, ref, x):
    call = call_text("merge_heads", x=x)
    got = as_array(kata.merge_heads(x), call)
    _compare_layout(got, ref.merge_heads(x), call, x, Suspects(MERGE_VARIANTS, x), _token_piece)


def _attend(function, call, x, weights, n_heads, **causal):
    """function(x, *weights, n_heads) run by the learner; the shape error of k.T on the keys, split into heads
    (b, h, n, d_head) or taken a head at a time (b, n, d_head), is named, not left a crash."""
    try:
        return function(x, *weights, n_heads, **causal)
    except LearnerError as error:
        if not error.not_implemented and np.ndim(x) == 3 and np.shape(x)[-1] % n_heads == 0:
            b, n, d_model = np.shape(x)
            for keys in ((b, n_heads, n, d_model // n_heads), (b, n, d_model // n_heads)):  # (b, h, n, d_head)
                if full_transpose_error(error.message, keys, keys):
                    raise full_transpose_failure(call, error, keys) from None
        raise


def _run_mha(kata, ref, x, weights, n_heads, **causal):
    """The learner's output, the right one (from float64), and the call as text."""
    call = call_text("multi_head_attention", x=x, **dict(zip(WEIGHT_NAMES, weights)), n_heads=n_heads, **causal)
    got = one_array(_attend(kata.multi_head_attention, call, x, weights, n_heads, **causal), call)
    x64, weights64 = np.asarray(x, np.float64), [np.asarray(w, np.float64) for w in weights]
    return got, ref.multi_head_attention(x64, *weights64, n_heads, **causal), call




def _compare_mha(got, want, call, x, weights, n_heads, why="", **causal):
    x64, weights64 = np.asarray(x, np.float64), [np.asarray(w, np.float64) for w in weights]
    expect_close(got, want, call, Suspects(MHA_VARIANTS, x64, *weights64, n_heads, **causal), why=why,
                 inputs=(x, *weights), axes=("example", "token", "channel"),
                 confirm=lambda bug_id: scale_confirmation(bug_id, _scale_matched))


def _scale_matched(kata, sizes):
    """The id the learner's output matches (causal) on an input of `sizes` (engine/telling.py), or None."""
    n, _, d_head, n_heads = sizes
    x, weights = _inputs(np.random.default_rng(2017), 2, n, d_head * n_heads)
    got = np.asarray(kata.multi_head_attention(x, *weights, n_heads, True), np.float64)
    want = mha_variants._attention(x, *weights, n_heads, causal=True)  # every piece the right one
    if got.shape != want.shape:
        return None
    matched = Suspects(MHA_VARIANTS, x, *weights, n_heads, causal=True).match(got, want, *tolerance(got, x, *weights))
    return matched and matched[0]


def _expect_value_error(function, call, d_model, n_heads, *args):
    """The learner must refuse a d_model that n_heads does not divide, with a ValueError that says so."""
    reason = f"d_model = {d_model} is not divisible by n_heads = {n_heads}"
    try:
        got = function(*args)
    except LearnerError as error:
        if error.not_implemented:
            raise
        if error.type != "ValueError":
            raise Failure(f"{call} raised {error}, expected ValueError: {reason}") from None
        if error.message.startswith("cannot reshape"):
            raise Failure(f"{call} raised NumPy's reshape error ({error.message}), expected a ValueError of your "
                          f"own that says {reason}") from None
        if not error.message.strip():
            raise Failure(f"{call} raised ValueError without a message: say that {reason}") from None
        return
    shape = f"an array of shape {np.shape(got)}" if isinstance(got, np.ndarray) else show(got)
    raise Failure(f"{call} returned {shape}, expected ValueError: {reason}")


# --- split_heads and merge_heads --------------------------------------------------------------------

def test_split_shape(kata, ref, rng):
    x, n_heads = rng.normal(size=(2, 5, 12)), 3  # b=2, n=5, d_model=12, h=3, d_head=4
    call = call_text("split_heads", x=x, n_heads=n_heads)
    got = as_array(kata.split_heads(x, n_heads), call)
    if got.shape == (3, 2, 5, 4):
        raise Failure(f"{call} returned shape {got.shape}, expected (2, 3, 5, 4): the heads axis came in front "
                      "of the batch axis", "heads-batch-order")
    expect_shape(got, (2, 3, 5, 4), call, why="(b, h, n, d_head) with d_head = d_model // h")


@bug("reshape-without-transpose")
def test_split_heads(kata, ref, rng):
    _check_split(kata, ref, rng.normal(size=(2, 5, 12)), 3)  # b=2, n=5, h=3, d_head=4


@bug("heads-interleaved")
def test_split_channels(kata, ref, rng):
    _check_split(kata, ref, rng.normal(size=(2, 3, 8)), 4)  # d_head=2 != h=4: strided channels differ


@bug("heads-batch-order")
def test_split_examples(kata, ref, rng):
    _check_split(kata, ref, rng.normal(size=(3, 4, 6)), 2)  # b=3 != h=2: folds in either order differ


def test_merge_shape(kata, ref, rng):
    x = rng.normal(size=(2, 3, 5, 4))  # (b, h, n, d_head)
    call = call_text("merge_heads", x=x)
    got = as_array(kata.merge_heads(x), call)
    if got.shape != (2, 5, 12):
        matched = Suspects(MERGE_VARIANTS, x).match(got, ref.merge_heads(x), *tolerance(got, x))
        if matched:
            raise Failure(f"{call} returned shape {got.shape}, expected (2, 5, 12): {matched[1]}", matched[0],
                          exact=True)
    expect_shape(got, (2, 5, 12), call, why="(b, n, d_model) with d_model = h * d_head")


@bug("merge-without-transpose")
def test_merge_heads(kata, ref, rng):
    _check_merge(kata, ref, rng.normal(size=(2, 3, 5, 4)))  # b=2, h=3, n=5, d_head=4


def test_round_trip(kata, rng):
    x, n_heads = rng.normal(size=(3, 4, 6)), 2
    call = f"merge_heads(split_heads(x {x.shape}, n_heads={n_heads}))"
    back = as_array(kata.merge_heads(as_array(kata.split_heads(x, n_heads), call)), call)
    expect_close(back, x, call, why="merge_heads must undo split_heads exactly", inputs=(x,))
    y = rng.normal(size=(3, 2, 4, 3))
    call = f"split_heads(merge_heads(x {y.shape}), n_heads=2)"
    again = as_array(kata.split_heads(as_array(kata.merge_heads(y), call), 2), call)
    expect_close(again, y, call, why="split_heads must undo merge_heads exactly", inputs=(y,))


def test_split_indivisible(kata, rng):
    x = rng.normal(size=(2, 5, 12))
    _expect_value_error(kata.split_heads, call_text("split_heads", x=x, n_heads=5), 12, 5, x, 5)


# --- multi_head_attention ------------------------------------------------------------------------------

def test_mha_shape(kata, ref, rng):
    x, weights = _inputs(rng, 2, 5, 12)
    got, want, call = _run_mha(kata, ref, x, weights, 3)
    expect_shape(got, want.shape, call, why="the output has the input's shape, (b, n, d_model)")


def test_mha_values(kata, ref, rng):
    x, weights = _inputs(rng, 2, 5, 12)  # h=3, d_head=4; causal left to its default, True
    got, want, call = _run_mha(kata, ref, x, weights, 3)
    _compare_mha(got, want, call, x, weights, 3)


@bug("causal-ignored")
def test_mha_weights_pictured(kata, ref, rng):
    # One-hot values and identity W_V, W_O: each head's output is its weight table, so a failure can be drawn.
    n, n_heads = 4, 2  # d_head = n: token j's value in every head is the one-hot e_j
    x = np.tile(np.eye(n), (1, n_heads))[None]  # (1, n, d_model)
    d_model = n * n_heads
    weights = (*rng.normal(size=(2, d_model, d_model)), np.eye(d_model), np.eye(d_model))
    got, want, call = _run_mha(kata, ref, x, weights, n_heads, causal=True)
    try:
        _compare_mha(got, want, call, x, weights, n_heads, causal=True)
    except Failure as failure:
        if got.shape == want.shape:
            failure.picture = WeightGrid(got[0, :, :n], want[0, :, :n], np.tril(np.ones((n, n), bool)),
                                         "head 0's weights (its output, as values are one-hot)")
        raise


def test_mha_worked_example(kata, ref):
    x = np.array([[[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]])  # the A/B/C tokens
    weights = (np.eye(2),) * 4  # queries, keys and values are x itself, as in the seeds' example
    got, want, call = _run_mha(kata, ref, x, weights, 1)
    _compare_mha(got, want, call, x, weights, 1)


@bug("merge-without-transpose")
def test_mha_heads_stay_whole(kata, ref, rng):
    x, weights = _inputs(rng, 3, 4, 6)  # h=2, d_head=3: split and merge checked again, maybe inlined
    got, want, call = _run_mha(kata, ref, x, weights, 2, causal=True)
    _compare_mha(got, want, call, x, weights, 2, causal=True)


@bug("heads-batch-order")
def test_mha_examples_independent(kata, ref, rng):
    x, weights = _inputs(rng, 3, 5, 8)  # b=3 != h=2
    got, want, call = _run_mha(kata, ref, x, weights, 2, causal=True)
    other = x.copy()
    other[1:] = rng.normal(size=other[1:].shape)
    changed, _, _ = _run_mha(kata, ref, other, weights, 2, causal=True)
    why = ""
    if got.shape == changed.shape == want.shape and not _same(changed[0], got[0]):
        why = "example 0's output changed when only examples 1 and 2 changed: examples must never mix"
    _compare_mha(got, want, call, x, weights, 2, why=why, causal=True)


@bug("scale-by-d-model")
def test_mha_scale(kata, ref, rng):
    # h=4, d_head=2: the divisors sqrt(d_head), 1, d_head, 1/sqrt(d_head) and sqrt(d_model) all differ, so
    # each scale bug is told apart from the others (d_model = 9, h = 3 would make sqrt(d_model) = d_head)
    x, weights = _inputs(rng, 3, 5, 8)
    got, want, call = _run_mha(kata, ref, x, weights, 4, causal=False)
    _compare_mha(got, want, call, x, weights, 4, causal=False)


@bug("missing-output-projection")
def test_mha_output_projection(kata, ref, rng):
    for n_heads in (3, 1):  # one head still has its W_O
        x, weights = _inputs(rng, 2, 6, 12)  # d_head = 4 or 12, never sqrt(d_model)
        got, want, call = _run_mha(kata, ref, x, weights, n_heads, causal=True)
        _compare_mha(got, want, call, x, weights, n_heads, causal=True)


@bug("weight-orientation")
def test_mha_weight_orientation(kata, ref, rng):
    x, weights = _inputs(rng, 2, 5, 12)  # h=2, d_head=6; W != W.T
    got, want, call = _run_mha(kata, ref, x, weights, 2, causal=True)
    _compare_mha(got, want, call, x, weights, 2, causal=True)


def _with_new_last_token(rng, x):
    changed = x.copy()
    changed[:, -1] = rng.normal(size=changed[:, -1].shape)
    return changed


@bug("causal-ignored")
def test_mha_causal(kata, ref, rng):
    x, weights = _inputs(rng, 2, 6, 8)  # h=2, d_head=4
    got, want, call = _run_mha(kata, ref, x, weights, 2, causal=True)
    changed, _, _ = _run_mha(kata, ref, _with_new_last_token(rng, x), weights, 2, causal=True)
    why = ""
    if got.shape == changed.shape == want.shape and not _same(changed[:, :-1], got[:, :-1]):
        why = "changing only the last token changed the outputs of earlier tokens: a query saw a later key"
    _compare_mha(got, want, call, x, weights, 2, why=why, causal=True)


@bug("causal-ignored")
def test_mha_not_causal(kata, ref, rng):
    x, weights = _inputs(rng, 2, 6, 8)
    got, want, call = _run_mha(kata, ref, x, weights, 2, causal=False)
    changed, _, _ = _run_mha(kata, ref, _with_new_last_token(rng, x), weights, 2, causal=False)
    why = ""
    if got.shape == changed.shape == want.shape and _same(changed[:, 0], got[:, 0]):
        why = "changing the last token left token 0's output as it was: with causal=False every token sees all"
    _compare_mha(got, want, call, x, weights, 2, why=why, causal=False)


@bug("missing-keepdims")
def test_mha_one_sequence(kata, ref, rng):
    # b = 1 and h = n: a max or sum over the keys without keepdims, (1, h, n), then broadcasts against the
    # (1, h, n, n) scores without an error, along the wrong axis
    x, weights = _inputs(rng, 1, 3, 6)  # h=3, d_head=2
    got, want, call = _run_mha(kata, ref, x, weights, 3, causal=True)
    _compare_mha(got, want, call, x, weights, 3, causal=True)


def _far_apart(rng, b, n, d_model, n_heads, low=3000.0):
    """x, weights and the plain x they were built from, with scores far apart: w_k = -w_q, so each token
    scores -|q|^2 / sqrt(d_head) against itself, and token 0 is scaled until that is below -`low` in every
    head; token 1 is -token 0 and scores above +`low` against it. The other tokens score near +-100 against
    those two: rows far below the table's top."""
    plain, (w_q, _, w_v, w_o) = _inputs(rng, b, n, d_model)
    d_head = d_model // n_heads
    q0 = (plain[:, 0] @ w_q).reshape(b, n_heads, d_head)  # (b, h, d_head): token 0's queries
    weakest = float((q0 ** 2).sum(axis=-1).min()) / np.sqrt(d_head)
    x = plain.copy()
    x[:, 0] *= np.sqrt(low / weakest)
    x[:, 1] = -x[:, 0]
    return x, (w_q, -w_q, w_v, w_o), plain


def _underflows_apart(kata, ref, rng):
    """Is the learner's output non-finite when scores are only +-400 apart (exp(+-400) is finite, exp(-800) is 0)?"""
    x, weights, _ = _far_apart(rng, 2, 5, 12, 3, low=400.0)
    got, want, _ = _run_mha(kata, ref, x, weights, 3, causal=True)
    return got.shape == want.shape and not np.isfinite(got).all()


@bug("no-max-shift")
def test_mha_large_scores(kata, ref, rng):
    x, weights, plain = _far_apart(rng, 2, 5, 12, 3)  # h=3, d_head=4
    got, want, call = _run_mha(kata, ref, x, weights, 3, causal=True)
    call += " with scores below -3000 and above +3000 (w_k = -w_q, token 1 = -token 0)"
    if got.shape == want.shape and not _same(got, want):
        matched = Suspects(MHA_VARIANTS, x, *weights, 3, causal=True).match(got, want, *tolerance(got, x, *weights))
        control, right, _ = _run_mha(kata, ref, plain, weights, 3, causal=True)
        if not matched and _same(control, right):  # right with ordinary scores: only their size is the trouble
            if not np.isfinite(got).all() and _underflows_apart(kata, ref, rng):
                raise Failure(f"{call} returned NaN or inf, while the same weights on ordinary inputs are right, and "
                              "so do scores only +-400 apart, where exp neither overflows nor underflows in a row "
                              "shifted by its own maximum: the maximum of the whole array was subtracted, so rows "
                              "far below it underflow to 0/0; subtract each row's own maximum", "global-max",
                              exact=True, nonfinite=True)
            if not np.isfinite(got).all():
                raise Failure(f"{call} returned NaN or inf, while the same weights on ordinary inputs are right: "
                              "exp(3000) overflows to inf and inf/inf is NaN; subtract each row's maximum score "
                              "before np.exp", "no-max-shift", exact=True, nonfinite=True)
            raise Failure(f"{call} returned wrong values {first_difference(got, want, *tolerance(got, x))}, while "
                          "the same weights on ordinary inputs are right: token 0's only visible score is below "
                          "-3000, so a finite fill above it (-1e3, -1e4) wins over it; fill with -inf",
                          "fill-too-shallow", exact=True)
    _compare_mha(got, want, call, x, weights, 3, causal=True)


def test_mha_float32(kata, ref, rng):
    x, weights = _inputs(rng, 2, 5, 12)
    x, weights = x.astype(np.float32), tuple(w.astype(np.float32) for w in weights)
    got, want, call = _run_mha(kata, ref, x, weights, 3, causal=True)
    expect_float(got, call)
    _compare_mha(got, want, call, x, weights, 3, causal=True)


def test_mha_indivisible(kata, rng):
    x, weights = _inputs(rng, 2, 5, 12)
    call = call_text("multi_head_attention", x=x, **dict(zip(WEIGHT_NAMES, weights)), n_heads=5)
    _expect_value_error(kata.multi_head_attention, call, 12, 5, x, *weights, 5)


@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    calls = []
    for dtype in (np.float64, np.float32):  # a no-copy np.asarray keeps the caller's array for some dtypes only
        x, weights = _inputs(rng, 2, 5, 12)
        x, weights, heads = x.astype(dtype), [w.astype(dtype) for w in weights], rng.normal(size=(2, 3, 5, 4))
        calls += [(kata.split_heads, ("x", "n_heads"), (x, 3)), (kata.merge_heads, ("x",), (heads.astype(dtype),)),
                  (kata.multi_head_attention, ("x", *WEIGHT_NAMES, "n_heads"), (x, *weights, 3))]
    for function, names, args in calls:
        call = call_text(function.name, **dict(zip(names, args)))
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        if len(args) == 6:  # multi_head_attention: its k.T is named
            _, after = _attend(function.keeping_args, call, copies[0], copies[1:5], copies[5])
        else:
            _, after = function.keeping_args(*copies)
        expect_unchanged(call, dict(zip(names, args)), after, "mutates-input")


def test_results_stay_unchanged(kata, rng):
    # a result must not change because of a later call: keep the first, read it again after a second (a split
    # that is a view of its x is fine: nothing writes into that x afterwards)
    (x1, weights), (x2, _) = _inputs(rng, 2, 5, 12), _inputs(rng, 2, 5, 12)
    expect_kept(kata.split_heads, (x1, 3), (x2, 3), call_text("split_heads", x=x1, n_heads=3), "a second call")
    h1, h2 = rng.normal(size=(2, 3, 5, 4)), rng.normal(size=(2, 3, 5, 4))
    expect_kept(kata.merge_heads, (h1,), (h2,), call_text("merge_heads", x=h1), "a second call")
    call = call_text("multi_head_attention", x=x1, **dict(zip(WEIGHT_NAMES, weights)), n_heads=3)
    expect_kept(kata.multi_head_attention, (x1, *weights, 3), (x2, *weights, 3), call, "a second call on another x")

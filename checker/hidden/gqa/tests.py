"""Hidden tests for kata 07: repeat_kv(x, n_rep) and grouped_query_attention(q, k, v, causal=True).

Shapes are chosen so the classic bugs cannot hide: groups strictly between multi-query and multi-head
(1 < h_kv < h_q, where tiled and repeated kv heads differ), h_kv = 1 and h_kv = h_q as well, b > 1,
n_q != n_k (the causal mask's alignment shows), d != d_v, and d with a square root far from 1.
Which kv head each query head read is measured with one-hot values, whatever the weights are, so
the message can say which head was used against which should have been. The tests built for one
bug use h_kv = 1 or h_kv = h_q where they can, so a wrong head mapping cannot hide another bug.
"""

import re

import numpy as np

from checker.hidden.gqa.heads import input_heads, kv_heads_read, mapping_failure, tiled_on_values
from checker.hidden.gqa.variants import GQA_VARIANTS, LOOKALIKES, REPEAT_VARIANTS, bottom_right
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, as_array, bug, call_text, changed, close, expect_precision, \
    expect_shape, first_difference, one_array, show, tolerance

API = {"repeat_kv": ("x", "n_rep"), "grouped_query_attention": ("q", "k", "v", "causal")}


# --- running and comparing ------------------------------------------------------------------------

def _inputs(rng, b, h_q, h_kv, n_q, n_k, d, d_v, dtype=np.float64):
    """q (b, h_q, n_q, d), k (b, h_kv, n_k, d), v (b, h_kv, n_k, d_v): random, scores spread near 1."""
    q = rng.normal(size=(b, h_q, n_q, d))
    k, v = rng.normal(size=(b, h_kv, n_k, d)), rng.normal(size=(b, h_kv, n_k, d_v))
    return tuple(x.astype(dtype) for x in (q, k, v))


def _call(q, k, v, causal):
    return call_text("grouped_query_attention", q=q, k=k, v=v, **causal)


def _run(kata, ref, q, k, v, **causal):
    """The learner's output, the right one (from float64), and the call as text; `causal` as given, or left
    to its default."""
    call = _call(q, k, v, causal)
    got = one_array(kata.grouped_query_attention(q, k, v, **causal), call)
    want = ref.grouped_query_attention(*(np.asarray(x, np.float64) for x in (q, k, v)), **causal)
    return got, want, call


def _where(index, n_q, n_k):
    example, head, query, channel = index
    return (f"example {example}, query head {head}, query {query} (position {n_k - n_q + query} of {n_k}), "
            f"channel {channel}")


def _match(got, want, rtol, atol, q, k, v, causal):
    """(bug id, why) of the one catalogued bug whose output on these inputs `got` equals; (None, why) when only
    a look-alike outside the catalogue does; None when nothing does, or when outputs that differ in kind
    all do (the input cannot tell them apart)."""
    found = {}
    args = tuple(np.asarray(x, np.float64) for x in (q, k, v))
    for function in GQA_VARIANTS + LOOKALIKES:
        try:
            with np.errstate(all="ignore"):
                output = np.asarray(function(*args, **causal))
        except Exception:  # noqa: BLE001 - this variant cannot run on this input: it is not the match
            continue
        if output.shape != got.shape or (output.shape == want.shape and close(output, want, rtol, atol).all()):
            continue  # this input does not show this bug
        if close(got, output, rtol, atol).all():
            found.setdefault(getattr(function, "variant_of", function.__name__), " ".join(function.__doc__.split()))
    if len(found) != 1:
        return None
    key, why = next(iter(found.items()))
    return (key if key in {f.variant_of for f in GQA_VARIANTS} else None), why


SCALE_BUGS = ("missing-scale", "scale-by-dk", "scale-inverted")
# (b, h_q, h_kv, n_q, n_k, d, d_v) of the inputs a name is tried again on: a square input of 6 positions, where a
# mask that is merely off gives another output than no mask; for a top-left mask, n_k - n_q = 4 and 3 (a boundary
# moved by a fixed number of keys is top-left at one offset only); for a scale, d = 9 and d = 16, where 1/d,
# 1/sqrt(d), sqrt(d) and a constant factor (1 / (2 sqrt(d)) is 1/d at d = 4) all differ
SECOND_OPINIONS = {"causal-ignored": ((1, 2, 1, 6, 6, 4, 3),),
                   "mask-top-left": ((1, 2, 1, 3, 7, 4, 3), (1, 2, 1, 2, 5, 4, 3)),
                   **{bug_id: ((2, 2, 1, 3, 5, 9, 3), (1, 4, 2, 2, 4, 16, 3)) for bug_id in SCALE_BUGS}}


def _confirmed(kata, ref, bug_id, causal):
    """Does the learner show `bug_id` again on each of SECOND_OPINIONS' inputs for it (True for a bug without)?"""
    rng = np.random.default_rng(7)
    for shape in SECOND_OPINIONS.get(bug_id, ()):
        q, k, v = _inputs(rng, *shape)
        try:
            got = np.asarray(kata.grouped_query_attention(q, k, v, **causal), np.float64)
        except LearnerError:
            return False
        want = ref.grouped_query_attention(q, k, v, **causal)
        if got.shape != want.shape:
            return False
        matched = _match(got, want, *tolerance(got, q, k, v), q, k, v, causal)
        if not (matched and matched[0] == bug_id):
            return False
    return True


def _compare(kata, ref, got, want, call, q, k, v, why="", **causal):
    """Fail unless got matches want; say where it first differs and name the bug whose output it is."""
    expect_shape(got, want.shape, call, why="(b, h_q, n_q, d_v): one output per query head, query and value channel")
    expect_precision(got, (q, k, v), call)
    # float32 arithmetic anywhere inside is honest, even for float64 inputs and results
    rtol, atol = tolerance(got, *(np.asarray(x, np.float32) for x in (q, k, v)))
    bad = ~close(got, want, rtol, atol)
    if not bad.any():
        return
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    detail = (f"{call} returned wrong values at {_where(index, q.shape[2], k.shape[2])}: "
              f"got {got[index]:.6g}, expected {want[index]:.6g}")
    nonfinite = bool((~np.isfinite(got) & np.isfinite(want)).any())
    matched = _match(got, want, rtol, atol, q, k, v, causal)
    if matched and matched[0] in SECOND_OPINIONS and not _confirmed(kata, ref, matched[0], causal):
        matched = None  # this input cannot tell the bug from its rivals (no mask, a mask off by one; 1/d and a
        # constant factor at d = 4); the inputs that can do not show it
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=bool(matched[0]), nonfinite=nonfinite)
    raise Failure(detail + (f": {why}" if why else ""), nonfinite=nonfinite)


def _check(kata, ref, q, k, v, why="", **causal):
    got, want, call = _run(kata, ref, q, k, v, **causal)
    _compare(kata, ref, got, want, call, q, k, v, why, **causal)
    return got


def _check_repeat(kata, ref, x, n_rep):
    call = call_text("repeat_kv", x=x, n_rep=n_rep)
    got = as_array(kata.repeat_kv(x, n_rep), call)
    b, h_kv, n, d = x.shape
    expect_shape(got, (b, h_kv * n_rep, n, d), call, why="(b, h_kv * n_rep, n, d): n_rep copies of every kv head")
    failure = mapping_failure(input_heads(got, x), h_kv * n_rep, h_kv, call, subject="output head",
                               source="input head", rule=f"j // n_rep = j // {n_rep}",
                               setting=f"h_kv={h_kv}, n_rep={n_rep}",
                               verbs=("is", "are", "should be"), tiled=" ".join(REPEAT_VARIANTS[0].__doc__.split()),
                               right_rule="output head j is input head j // n_rep: each head's copies side by side")
    if failure:
        raise failure
    want = ref.repeat_kv(x, n_rep)
    if not close(got, want, *tolerance(got, x)).all():
        raise Failure(f"{call} returned wrong values {first_difference(got, want, *tolerance(got, x))}: every head "
                      "is a copy of an input head")


# --- repeat_kv ------------------------------------------------------------------------------------

def test_repeat_kv_shape(kata, rng):
    x = rng.normal(size=(2, 3, 5, 4))  # (b, h_kv, n, d)
    call = call_text("repeat_kv", x=x, n_rep=2)
    got = as_array(kata.repeat_kv(x, 2), call)
    expect_shape(got, (2, 6, 5, 4), call, why="(b, h_kv * n_rep, n, d): the heads axis, axis 1, grows")


@bug("kv-heads-tiled")
def test_repeat_kv_heads(kata, ref, rng):
    for shape, n_rep in (((2, 3, 5, 4), 2), ((3, 2, 4, 5), 3), ((2, 3, 4, 2), 1)):
        _check_repeat(kata, ref, rng.normal(size=shape), n_rep)


# --- grouped_query_attention ------------------------------------------------------------------------

def test_shape(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 6, 2, 3, 5, 4, 7)
    got, want, call = _run(kata, ref, q, k, v)
    expect_shape(got, want.shape, call, why="(b, h_q, n_q, d_v): one output per query head, with the values' "
                                           "channels")


def test_values(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 6, 3, 4, 7, 5, 3)  # groups of 2; causal left to its default, True
    _check(kata, ref, q, k, v)


@bug("kv-heads-tiled")
def test_head_mapping(kata, ref, rng):
    # kv head j's values are the one-hot e_j at every position: query head i's output is e_(the kv head it
    # read), whatever its weights, so the head it used can be read off its output
    for b, h_q, h_kv, n_q, n_k, d in ((2, 6, 3, 3, 5, 4), (3, 8, 2, 2, 4, 5)):
        q, k, _ = _inputs(rng, b, h_q, h_kv, n_q, n_k, d, 1)
        d_v = h_kv + 2
        v = np.broadcast_to(np.eye(d_v)[:h_kv, None, :], (b, h_kv, n_k, d_v)).copy()  # (b, h_kv, n_k, d_v)
        call = _call(q, k, v, {"causal": False}) + " with v[:, j] = the one-hot e_j at every position"
        got = one_array(kata.grouped_query_attention(q, k, v, causal=False), call)
        expect_shape(got, (b, h_q, n_q, d_v), call, why="(b, h_q, n_q, d_v)")
        failure = mapping_failure(kv_heads_read(got, h_kv), h_q, h_kv, call)
        if failure and failure.bug:
            tiled, looks = tiled_on_values(kata, ref)
            if not tiled:  # the slots hold tiled heads' values, but not the tiled computation: name nothing
                failure = Failure(f"{failure.message.split(': query head i read')[0]}: {looks}")
        if failure:
            raise failure


def test_multi_query(kata, ref, rng):
    q, k, v = _inputs(rng, 3, 4, 1, 2, 6, 5, 3)  # h_kv = 1: every query head shares the one kv head
    _check(kata, ref, q, k, v, why="in this call h_kv = 1: every query head shares the one kv head", causal=True)


def test_multi_head(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 3, 3, 4, 4, 5, 2)  # h_kv = h_q: plain multi-head attention, head i reads kv head i
    _check(kata, ref, q, k, v, why="in this call h_kv = h_q: query head i reads kv head i", causal=True)


@bug("missing-scale")
def test_scale(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 2, 2, 3, 4, 9, 5)  # d = 9: the scale is 1/3
    _check(kata, ref, q, k, v, why="in this call d = 9: the scores are q . k / 3", causal=False)


@bug("mask-top-left")
def test_bottom_right(kata, ref, rng):
    # the queries are the LAST n_q positions: a prompt continued (3 of 7) and a decode step (1 of 6)
    for b, h_q, n_q, n_k in ((2, 3, 3, 7), (3, 2, 1, 6)):
        q, k, v = _inputs(rng, b, h_q, 1, n_q, n_k, 4, 5)
        _check(kata, ref, q, k, v, causal=True,
               why=f"in this call query t is position {n_k} - {n_q} + t and sees keys 0 to it")


def _with_new_last_key(rng, k, v):
    k, v = k.copy(), v.copy()
    k[:, :, -1], v[:, :, -1] = rng.normal(size=k[:, :, -1].shape), rng.normal(size=v[:, :, -1].shape)
    return k, v


def _same(a, b):
    return a.shape == b.shape and close(a, b, *tolerance(a, b)).all()


@bug("causal-ignored")
def test_causal(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 4, 2, 5, 5, 3, 4)
    for causal in ({"causal": True}, {}):  # said, and left to the default
        got, want, call = _run(kata, ref, q, k, v, **causal)
        other, _, _ = _run(kata, ref, q, *_with_new_last_key(rng, k, v), **causal)
        why = ""
        if got.shape == other.shape == want.shape and not _same(got[:, :, :-1], other[:, :, :-1]):
            why = "changing only the last key and value changed the outputs of earlier queries: a query saw the future"
        _compare(kata, ref, got, want, call, q, k, v, why, **causal)


@bug("causal-ignored")
def test_not_causal(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 2, 1, 3, 6, 4, 3)
    got, want, call = _run(kata, ref, q, k, v, causal=False)
    other, _, _ = _run(kata, ref, q, *_with_new_last_key(rng, k, v), causal=False)
    why = ""
    if got.shape == other.shape == want.shape and _same(got[:, :, 0], other[:, :, 0]):
        why = "changing the last key and value left query 0's output as it was: with causal=False every query sees all"
    _compare(kata, ref, got, want, call, q, k, v, why, causal=False)


@bug("mask-after-softmax")
def test_mask_before_softmax(kata, ref, rng):
    # The last key scores above 1000 against every query, and only the last query may see it: masked
    # after the softmax, it has already taken all the weight of the queries that may not see it.
    b, h_q, n_q, n_k, d = 2, 2, 3, 6, 4
    q, k, v = _inputs(rng, b, h_q, 1, n_q, n_k, d, 3)
    q[..., 0] = rng.uniform(2, 4, size=q[..., 0].shape)
    k[:, :, :-1, 0] = rng.normal(size=k[:, :, :-1, 0].shape) * 0.1
    k[:, :, -1, 0] = 1000.0
    _check(kata, ref, q, k, v, why="in this call the last key scores above 1000 and only the last query may see it",
           causal=True)


def _small_ints(rng, shape):
    return rng.integers(-3, 4, size=shape).astype(np.float64)  # exact in every precision


def _right(kata, ref, q, k, v, causal):
    """Does the learner get these inputs right (no failure of its own counted)?"""
    try:
        got = np.asarray(kata.grouped_query_attention(q, k, v, causal=causal), np.float64)
    except LearnerError as error:
        if error.not_implemented:
            raise
        return False
    want = ref.grouped_query_attention(q, k, v, causal=causal)
    return got.shape == want.shape and close(got, want, *tolerance(got, q, k, v)).all()


@bug("fill-too-shallow")
def test_fill_below_scores(kata, ref, rng):
    # Key j scores -35000 + 6000 j (plus a few units) against every query: every real score sits far below a
    # finite fill such as -1e4, and a blocked key scores more than 1e4 above the visible ones, so a finite
    # penalty added to it is not enough either. The values are one-hot, v[..., j, :] = e_j, so each output
    # row is the query's weights over the keys: right, all on its last visible key. Integers keep it exact.
    b, h_q, n_q, n_k, d = 2, 2, 3, 5, 4
    q, k = _small_ints(rng, (b, h_q, n_q, d)), _small_ints(rng, (b, 1, n_k, d))
    q[..., 0], k[..., 0] = 100.0, -700.0 + 120.0 * np.arange(n_k)  # q . k / 2 = -35000 + 6000 j + ...
    v = np.broadcast_to(np.eye(n_k), (b, 1, n_k, n_k)).copy()  # (b, h_kv, n_k, d_v = n_k)
    got, want, call = _run(kata, ref, q, k, v, causal=True)
    call += " with real scores from -35000 (key 0) to -11000 (key 4) and v[..., j, :] = e_j (outputs are weights)"
    ordinary = q.copy()
    ordinary[..., 0] = 0.0  # the same queries without the large part: scores of a few units
    high = k.copy()
    high[..., 0] = 0.0
    high[..., -1, 0] = 20.0  # ordinary scores, but the last key, blocked for all but the last query, scores ~1000
    rtol, atol = tolerance(got, *(np.asarray(x, np.float32) for x in (q, k, v)))
    if got.shape == want.shape and not close(got, want, rtol, atol).all() and \
            close(got[:, :, -1], want[:, :, -1], rtol, atol).all() and _right(kata, ref, ordinary, k, v, True) and \
            _right(kata, ref, q, high, v, True):
        # the last query sees every key and came out right, and the mask works both with ordinary scores and
        # against a blocked key scoring far above the rest (weights edited after the softmax do not): what
        # went wrong is what blocked keys get, a fill that real scores went below
        blocked = np.broadcast_to(~bottom_right(n_q, n_k), got.shape)
        leak = np.isfinite(got) & blocked & (np.abs(got) > 1e-3)
        if leak.any():
            example, head, query, key = (int(i) for i in np.argwhere(leak)[0])
            what = (f"query {query} (position {n_k - n_q + query}) put weight {got[example, head, query, key]:.4g} "
                    f"on key {key}, which it may not see (example {example}, head {head})")
        else:
            example, head, query = (int(i) for i in np.argwhere(~close(got, want, rtol, atol).all(-1))[0])
            what = (f"query {query} (position {n_k - n_q + query}) got weights {show(got[example, head, query])}, "
                    f"expected {show(want[example, head, query])} (example {example}, head {head}): the fill took "
                    "the maximum and the real keys' exponentials underflowed to 0")
        raise Failure(f"{call}: {what}, although the last query, which sees every key, is right, and the mask works "
                      "with ordinary scores and against a blocked key scoring +1000: the blocked keys' fill is finite "
                      "and real scores went below it; fill with -inf", "fill-too-shallow", exact=True,
                      nonfinite=not np.isfinite(got).all())
    _compare(kata, ref, got, want, call, q, k, v, causal=True)


@bug("no-max-shift")
def test_large_scores(kata, ref, rng):
    # every score near +1000, where exp overflows unless the row's maximum is subtracted first
    b, h, n_q, n_k, d = 2, 3, 2, 4, 4
    q, k, v = _small_ints(rng, (b, h, n_q, d)), _small_ints(rng, (b, h, n_k, d)), rng.normal(size=(b, h, n_k, 3))
    q[..., 0], k[..., 0] = 40.0, 50.0  # q . k / 2 = 1000 + a few units, exactly
    got, want, call = _run(kata, ref, q, k, v, causal=True)
    call += " with every score near +1000"
    ordinary = q.copy()
    ordinary[..., 0] = 0.0
    if got.shape == want.shape and not np.isfinite(got).all() and _right(kata, ref, ordinary, k, v, True):
        index = tuple(int(i) for i in np.argwhere(~np.isfinite(got))[0])
        raise Failure(f"{call} returned {got[index]} at {_where(index, n_q, n_k)}, expected {want[index]:.6g}, "
                      "although ordinary scores come out right: exp(1000) overflows to inf and inf/inf is NaN; "
                      "subtract each row's maximum before np.exp", "no-max-shift", exact=True, nonfinite=True)
    _compare(kata, ref, got, want, call, q, k, v, causal=True)


_NUMPY_ERRORS = ("could not be broadcast together", "could not broadcast", "cannot reshape array",
                 "mismatch in its core dimension", "does not match previous terms", "shape mismatch",
                 "non-broadcastable", "inconsistent size")


def _names(message, number):
    return re.search(rf"(?<![\d.]){number}(?![\d.])", message) is not None


@bug("gqa-no-head-check")
def test_indivisible_heads(kata, rng):
    # every other dimension differs from both head counts, so naming them means naming the heads
    for b, h_q, h_kv, n_q, n_k, d, d_v in ((2, 9, 6, 3, 5, 4, 7), (3, 2, 4, 5, 7, 8, 1)):
        q, k, v = _inputs(rng, b, h_q, h_kv, n_q, n_k, d, d_v)
        call = _call(q, k, v, {})
        reason = f"h_q = {h_q} query heads cannot be split into groups over h_kv = {h_kv} kv heads"
        try:
            got = kata.grouped_query_attention(q, k, v)
        except LearnerError as error:
            if error.not_implemented:
                raise
            if error.type != "ValueError":
                raise Failure(f"{call} raised {error}, expected a ValueError of your own: {reason}; check "
                              "h_q % h_kv before computing anything", "gqa-no-head-check") from None
            if any(phrase in error.message for phrase in _NUMPY_ERRORS):
                raise Failure(f"{call} raised NumPy's own shape error ({error.message}), expected a ValueError of "
                              f"your own that says {reason}: check h_q % h_kv first", "gqa-no-head-check") from None
            if not (_names(error.message, h_q) and _names(error.message, h_kv)):
                raise Failure(f"{call} raised ValueError({error.message!r}): say both head counts in the message, "
                              f"h_q = {h_q} and h_kv = {h_kv}") from None
            continue
        shape = f"an array of shape {np.shape(got)}" if isinstance(got, np.ndarray) else show(got)
        raise Failure(f"{call} returned {shape}, expected ValueError: {reason} (h_q % h_kv = {h_q % h_kv}); "
                      "check h_q % h_kv before computing anything", "gqa-no-head-check")


def test_float32(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 4, 2, 3, 5, 6, 4, dtype=np.float32)
    got, want, call = _run(kata, ref, q, k, v, causal=True)
    if got.dtype.kind != "f":
        raise Failure(f"{call} returned dtype {got.dtype}, expected floating point")
    _compare(kata, ref, got, want, call, q, k, v, causal=True)


@bug("mutates-input")
def test_inputs_unchanged(kata, rng):
    calls = []
    for dtype in (np.float64, np.float32):  # a no-copy np.asarray keeps the caller's array for some dtypes only
        for h_kv, causal in ((2, True), (4, False)):  # h_kv = h_q: a repeat_kv(k, 1) that returns k is the caller's k
            q, k, v = _inputs(rng, 2, 4, h_kv, 3, 5, 6, 4, dtype=dtype)
            calls.append((kata.grouped_query_attention, ("q", "k", "v", "causal"), (q, k, v, causal)))
        calls.append((kata.repeat_kv, ("x", "n_rep"), (rng.normal(size=(2, 3, 4, 5)).astype(dtype), 2)))
    for function, names, args in calls:
        _, after = function.keeping_args(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        for name, before, now in zip(names, args, after):
            if isinstance(before, np.ndarray) and not np.array_equal(before, np.asarray(now)):
                now = np.asarray(now)
                where = f" ({changed(before, now)})" if now.shape == before.shape else ""
                raise Failure(f"{call_text(function.name, **dict(zip(names, args)))} changed its argument "
                              f"{name}{where}: work on new arrays, never the caller's", "mutates-input", exact=True)

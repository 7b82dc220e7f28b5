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

from checker.hidden.gqa.variants import GQA_VARIANTS, REPEAT_VARIANTS, TILED, kv_head_of, tiled_head_of
from checker.sandbox import LearnerError
from checker.testkit import Failure, Suspects, as_array, bug, call_text, changed, close, expect_precision, \
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


def _compare(got, want, call, q, k, v, why="", **causal):
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
    suspects = Suspects(GQA_VARIANTS, *(np.asarray(x, np.float64) for x in (q, k, v)), **causal)
    matched = suspects.match(got, want, rtol, atol)
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True, nonfinite=nonfinite)
    raise Failure(detail + (f": {why}" if why else ""), nonfinite=nonfinite)


def _check(kata, ref, q, k, v, why="", **causal):
    got, want, call = _run(kata, ref, q, k, v, **causal)
    _compare(got, want, call, q, k, v, why, **causal)
    return got


# --- which kv head each query head read ---------------------------------------------------------------

def _heads_list(heads):
    return "[" + ", ".join("?" if j is None else str(j) for j in heads) + "]"


def _mapping_failure(used, h_q, h_kv, call, subject="query head", source="kv head", rule=None, setting=None,
                     verbs=("used", "used", "should use"), tiled=TILED,
                     right_rule="query head i reads kv head i // (h_q / h_kv), the group of h_q / h_kv consecutive "
                                "query heads it belongs to"):
    """A Failure naming the first head that read the wrong source head, or None if every one read its own.

    `used[i]` is the source head that head i read (None: a mix, or none); tiled heads name kv-heads-tiled.
    """
    right = [kv_head_of(i, h_q, h_kv) for i in range(h_q)]
    if used == right:
        return None
    i = next(i for i, (got, want) in enumerate(zip(used, right)) if got != want)
    rule = rule or f"i // {h_q // h_kv}"
    setting = setting or f"h_q={h_q}, h_kv={h_kv}"
    read = f"no single {source} (a mix, or nothing)" if used[i] is None else f"{source} {used[i]}"
    did, all_did, should = verbs
    detail = (f"{call}: {subject} {i} {did} {read}; with {setting} it {should} {source} {right[i]} "
              f"({rule}); {subject}s 0-{h_q - 1} {all_did} {source}s {_heads_list(used)}, expected "
              f"{_heads_list(right)}")
    if used == [tiled_head_of(i, h_q, h_kv) for i in range(h_q)]:
        return Failure(f"{detail}: {tiled}", "kv-heads-tiled", exact=True)
    return Failure(f"{detail}: {right_rule}")


def _kv_heads_read(out, h_kv):
    """For each query head, the one kv head whose one-hot value (channel j = kv head j) fills its output, or None."""
    out = np.asarray(out, np.float64)
    magnitude = np.abs(out).max(axis=(0, 2))  # (h_q, d_v): how much of each channel each query head holds
    used = []
    for row in magnitude:
        filled = np.flatnonzero(row > 1e-3 * max(float(row.max()), 1e-12))
        used.append(int(filled[0]) if len(filled) == 1 and filled[0] < h_kv and np.isfinite(row).all() else None)
    return used


def _input_heads(got, x):
    """For each head of repeat_kv's output, the input head it equals (everywhere, every example), or None."""
    found = []
    for j in range(got.shape[1]):
        equal = [h for h in range(x.shape[1]) if close(got[:, j], x[:, h], *tolerance(got, x)).all()]
        found.append(equal[0] if len(equal) == 1 else None)
    return found


def _check_repeat(kata, ref, x, n_rep):
    call = call_text("repeat_kv", x=x, n_rep=n_rep)
    got = as_array(kata.repeat_kv(x, n_rep), call)
    b, h_kv, n, d = x.shape
    expect_shape(got, (b, h_kv * n_rep, n, d), call, why="(b, h_kv * n_rep, n, d): n_rep copies of every kv head")
    failure = _mapping_failure(_input_heads(got, x), h_kv * n_rep, h_kv, call, subject="output head",
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
        failure = _mapping_failure(_kv_heads_read(got, h_kv), h_q, h_kv, call)
        if failure:
            raise failure


def test_multi_query(kata, ref, rng):
    q, k, v = _inputs(rng, 3, 4, 1, 2, 6, 5, 3)  # h_kv = 1: every query head shares the one kv head
    _check(kata, ref, q, k, v, why="with h_kv = 1 every query head reads the one kv head", causal=True)


def test_multi_head(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 3, 3, 4, 4, 5, 2)  # h_kv = h_q: plain multi-head attention, head i reads kv head i
    _check(kata, ref, q, k, v, why="with h_kv = h_q query head i reads kv head i", causal=True)


@bug("missing-scale")
def test_scale(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 2, 2, 3, 4, 9, 5)  # d = 9: the scale is 1/3
    _check(kata, ref, q, k, v, why="scores are q . k / sqrt(d)", causal=False)


@bug("mask-top-left")
def test_bottom_right(kata, ref, rng):
    # the queries are the LAST n_q positions: a prompt continued (3 of 7) and a decode step (1 of 6)
    for b, h_q, n_q, n_k in ((2, 3, 3, 7), (3, 2, 1, 6)):
        q, k, v = _inputs(rng, b, h_q, 1, n_q, n_k, 4, 5)
        _check(kata, ref, q, k, v, why=f"query t is position {n_k} - {n_q} + t and sees keys 0 to it", causal=True)


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
        _compare(got, want, call, q, k, v, why, **causal)


@bug("causal-ignored")
def test_not_causal(kata, ref, rng):
    q, k, v = _inputs(rng, 2, 2, 1, 3, 6, 4, 3)
    got, want, call = _run(kata, ref, q, k, v, causal=False)
    other, _, _ = _run(kata, ref, q, *_with_new_last_key(rng, k, v), causal=False)
    why = ""
    if got.shape == other.shape == want.shape and _same(got[:, :, 0], other[:, :, 0]):
        why = "changing the last key and value left query 0's output as it was: with causal=False every query sees all"
    _compare(got, want, call, q, k, v, why, causal=False)


@bug("mask-after-softmax")
def test_mask_before_softmax(kata, ref, rng):
    # The last key scores above 1000 against every query, and only the last query may see it: masked
    # after the softmax, it has already taken all the weight of the queries that may not see it.
    b, h_q, n_q, n_k, d = 2, 2, 3, 6, 4
    q, k, v = _inputs(rng, b, h_q, 1, n_q, n_k, d, 3)
    q[..., 0] = rng.uniform(2, 4, size=q[..., 0].shape)
    k[:, :, :-1, 0] = rng.normal(size=k[:, :, :-1, 0].shape) * 0.1
    k[:, :, -1, 0] = 1000.0
    _check(kata, ref, q, k, v, why="blocked keys get weight 0 before the softmax; the visible ones sum to 1",
           causal=True)


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
    _compare(got, want, call, q, k, v, causal=True)


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

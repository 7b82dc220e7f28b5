"""Hidden tests for kata 09: next_token_probs(logits, temperature, top_k, top_p) and sample_token(probs, u).

Probabilities are built from chosen numbers (logits = log p, shuffled) so top_p can sit just below a
cumulative boundary (the crossing token ends on it) and just past it; every sum sorted before a token
stays >= 1e-5 from top_p, as SPEC promises. Rows of one batch keep different sets. u sits exactly on
the boundaries of cumulative sums that are exact in binary, or in the middle of a token's slice. Rows
near +1e4, near -1e4 and moderate share a batch, so each wrong shift of kata 02's softmax shows on its own rows.
"""

import numpy as np

from checker.hidden.sampling.explain import BOUNDARY_GAP, compare, nucleus_logits, rows_apart, unshifted
from checker.hidden.sampling.variants import SAMPLE_VARIANTS
from checker.engine.evidence import python_overflow
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, Suspects, as_array, bug, call_text, changed, close, one_array, \
    show, tolerance

API = {"next_token_probs": ("logits", "temperature", "top_k", "top_p"), "sample_token": ("probs", "u")}


def _run(kata, ref, logits, **options):
    """The learner's probabilities, the right ones (from float64), and the call as text."""
    call = call_text("next_token_probs", logits=np.asarray(logits), **options)
    got = one_array(kata.next_token_probs(logits, **options), call)
    return got, ref.next_token_probs(np.asarray(logits, np.float64), **options), call


def _check(kata, ref, logits, why="", **options):
    got, want, call = _run(kata, ref, logits, **options)
    compare(got, want, call, logits, options, ref, why, kata)
    return got


# --- shape first, then values ----------------------------------------------------------------------

def test_shape_and_dtype(kata, ref, rng):
    for shape in ((2, 3, 7), (7,)):
        logits = rng.normal(size=shape)
        got, want, call = _run(kata, ref, logits)
        if got.shape != want.shape or got.dtype.kind != "f":
            raise Failure(f"{call} returned {got.dtype} of shape {got.shape}, expected float probabilities of "
                          f"shape {want.shape}: one per token, the leading dims kept")


def test_plain_softmax(kata, ref, rng):
    _check(kata, ref, rng.normal(size=(2, 3, 6)) * 2, why="with no option, the probabilities are the softmax of "
                                                            "the logits")


# --- temperature ---------------------------------------------------------------------------------

@bug("temperature-multiplied")
def test_temperature_sharpens(kata, ref, rng):
    _check(kata, ref, rng.normal(size=(2, 7)) * 1.5, temperature=0.5,
           why="temperature T divides the logits: softmax(logits / T)")


@bug("temperature-after-softmax")
def test_temperature_flattens(kata, ref, rng):
    _check(kata, ref, rng.normal(size=(3, 6)) * 2, temperature=2.5,
           why="temperature T divides the logits: softmax(logits / T)")


# --- top-k ---------------------------------------------------------------------------------------

@bug("top-k-off-by-one")
def test_top_k(kata, ref, rng):
    logits = rng.permuted(np.tile(np.linspace(-2, 2, 8), (2, 1)) + rng.uniform(0, 0.2, (2, 8)), axis=-1)
    _check(kata, ref, logits, top_k=3, why="top_k = 3 keeps the 3 highest logits of each row")


@bug("top-k-off-by-one")
def test_top_k_one(kata, ref, rng):
    logits = rng.normal(size=(2, 6))
    _check(kata, ref, logits, temperature=0.8, top_k=1, why="top_k = 1 keeps only the highest logit")


def test_filters_off(kata, ref, rng):
    logits = rng.normal(size=(2, 5)) * 2
    for options in ({"top_k": 5}, {"top_k": 8}, {"top_k": 0}, {"top_k": None}, {"top_p": 1.0}, {"top_p": None}):
        _check(kata, ref, logits, why="top_k None, 0 or >= V keeps every token; so does top_p None or 1.0",
               **options)


def test_top_k_ties(kata, ref):
    logits = np.array([[3.0, 1.0, 2.0, 2.0, 0.0, -1.0],  # the 2nd and 3rd highest tie
                       [0.5, 0.5, 0.5, 2.0, -1.0, 1.0]])  # top_k = 2 keeps 3 and 5 tokens
    _check(kata, ref, logits, top_k=2, why="every logit tied with the k-th highest is kept too")
    _check(kata, ref, logits[1], top_k=3, why="every logit tied with the k-th highest is kept too")
    above = np.array([[2.0, 0.0, 2.0, 1.0, -1.0], [1.5, 1.5, 1.5, 0.5, 0.0]])  # ties ABOVE the k-th: k counts tokens
    _check(kata, ref, above, top_k=2, why="k counts tokens, not distinct values: two tokens tied at the top are the "
                                          "top 2 (ties only widen the k-th value)")


# --- top-p ---------------------------------------------------------------------------------------

PROBS = np.array([0.4, 0.3, 0.15, 0.1, 0.05])  # sums before each, most probable first: 0, .4, .7, .85, .95


@bug("top-p-drops-crossing-token")
def test_top_p_on_a_boundary(kata, ref, rng):
    logits = nucleus_logits(rng, PROBS)
    # 0.4 + 0.3 ends exactly on 0.7: just below it they are the nucleus; just past it 0.15 joins them
    for top_p in (0.7 - BOUNDARY_GAP, 0.7 + BOUNDARY_GAP):
        _check(kata, ref, logits, top_p=top_p)


@bug("top-p-drops-crossing-token")
def test_top_p_below_the_largest(kata, ref, rng):
    logits = np.stack([nucleus_logits(rng, PROBS), nucleus_logits(rng, [0.25, 0.2, 0.2, 0.2, 0.15])])
    got, want, call = _run(kata, ref, logits, top_p=0.1)
    if got.shape == want.shape and not (np.nan_to_num(got) > 0).any(axis=-1).all():
        raise Failure(f"{call} returned {show(got[0])} in row 0, expected {show(want[0])}: every token was "
                      "removed; the most probable token always stays, even when top_p is below its probability",
                      "top-p-drops-crossing-token", exact=True, nonfinite=not np.isfinite(got).all())
    compare(got, want, call, logits, {"top_p": 0.1}, ref, kata=kata)


@bug("top-p-unsorted")
def test_top_p_most_probable_first(kata, ref, rng):
    logits = nucleus_logits(rng, [0.05, 0.12, 0.33, 0.08, 0.22, 0.2], shuffle=False)
    _check(kata, ref, logits, top_p=0.6)


TIES = "ties sort by the lower index first: a stable DESCENDING sort, np.argsort(-p, kind='stable') (an ascending " \
       "sort read from the end, as in Hugging Face's TopPLogitsWarper, keeps the higher index)"


def test_top_p_ties(kata, ref):
    logits = np.array([[1.0, 3.0, 1.0, 1.0, 0.0],  # p = .687, .093, .093, .093, .034
                       [2.0, 1.0, 2.0, 0.0, 2.0]])  # three tied largest
    for top_p in (0.75, 0.2):
        _check(kata, ref, logits, top_p=top_p, why=TIES)


@bug("top-p-unsorted")
def test_top_p_rows(kata, ref, rng):
    logits = rows_apart(rng, (2, 3, 9), [[0.4, 1.0, 3.0], [2.0, 0.7, 5.0]], 0.8)
    _check(kata, ref, logits, top_p=0.8)


@bug("filter-before-temperature")
def test_top_p_after_temperature(kata, ref, rng):
    # at T = 0.5 the probabilities go as p^2: .7445, .1861, .0429, .0191, .0074, so the nucleus of 0.8 holds
    # two tokens (at T = 1 it would hold three; dropping the crossing token, one; in vocabulary order, four)
    logits = nucleus_logits(rng, [0.08, 0.5, 0.05, 0.25, 0.12], shuffle=False)
    _check(kata, ref, logits, temperature=0.5, top_p=0.8, why="top-p is measured after the temperature")


def test_top_k_before_top_p(kata, ref, rng):
    # top-k leaves [.3, .25] -> [.545, .455]; top-p 0.5 of that keeps one token (of the full softmax, two)
    logits = nucleus_logits(rng, [0.3, 0.25, 0.2, 0.15, 0.1])
    _check(kata, ref, logits, top_k=2, top_p=0.5, why="top-k first, then softmax, then top-p of that softmax")


@bug("no-renormalize")
def test_rows_sum_to_one(kata, ref, rng):
    logits = rows_apart(rng, (2, 3, 8), [[1.0, 0.5, 2.0], [0.8, 3.0, 1.5]], 0.7, top_k=5)
    _check(kata, ref, logits, top_k=5, top_p=0.7,
           why="top-k, softmax, top-p of that softmax, and the kept probabilities renormalised to sum to 1")


def test_removed_get_exactly_zero(kata, ref, rng):
    logits = rng.normal(size=(2, 7))
    for options in ({"top_k": 3}, {"top_p": 0.5}):
        got, want, call = _run(kata, ref, logits, **options)
        compare(got, want, call, logits, options, ref, kata=kata)
        if (got[want == 0] != 0).any():
            row, token = (int(i) for i in np.argwhere((got != 0) & (want == 0))[0])
            raise Failure(f"{call}: row {row}, token {token} got probability {got[row, token]:.3g}, expected exactly "
                          "0: a removed token gets probability exactly 0 (it must never be drawn)")


# --- stability, greedy, precision ------------------------------------------------------------------

@bug("no-max-shift")
def test_large_logits(kata, ref, rng):
    # rows near +1e4 and -1e4 and a moderate one in one batch: with no shift the first two overflow or
    # underflow; shifted by the batch's maximum, the last two; with a maximum floored at 0, the second
    rows = rng.normal(size=(3, 6)) + [[1e4], [-1e4], [6.0]]
    for logits, options in ((rows, {"temperature": 0.5}), (np.array([1e4, -1e4, 0.0, 9999.0]), {"top_p": 0.9})):
        try:
            got, want, call = _run(kata, ref, logits, **options)
        except LearnerError as error:  # math.exp(1e4) raises where np.exp gives inf: the same missing shift
            control, right, _ = _run(kata, ref, logits - logits.max(axis=-1, keepdims=True), **options)
            if python_overflow(error) and close(control, right, *tolerance(control)).all():
                raise Failure(f"{error.call} raised {error}, and is right on the same logits less each row's "
                              "maximum: exp(1e4) overflows; subtract each row's maximum before exp", "no-max-shift",
                              exact=True) from None
            raise
        try:
            compare(got, want, call, logits, options, ref, kata=kata)
        except Failure as failure:
            if failure.bug is None:
                unshifted(got, want, call, logits, lambda shifted: _run(kata, ref, shifted, **options)[0])
            raise


@bug("missing-keepdims")
def test_square_batch(kata, ref, rng):
    # as many rows as tokens: a max or sum without keepdims broadcasts without an error, along the wrong axis
    _check(kata, ref, rng.normal(size=(5, 5)) * 2, temperature=0.7, top_k=4,
           why="each row is its own distribution: max and sum over the last axis, keepdims=True")


GREEDY = "temperature 0 is greedy: one-hot at the argmax, the lowest index on ties"
DIVISION_ERRORS = ("ZeroDivisionError", "FloatingPointError")  # what dividing by temperature 0 raises


@bug("greedy-nan")
def test_greedy(kata, ref):
    logits = np.array([[1.0, 3.0, 3.0, 0.0, -2.0], [-2.0, -1.0, -5.0, -1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    for options in ({"temperature": 0.0}, {"temperature": 0.0, "top_k": 2, "top_p": 0.5}):
        call = call_text("next_token_probs", logits=logits, **options)
        try:
            got = one_array(kata.next_token_probs(logits, **options), call)
        except LearnerError as error:
            if error.type not in DIVISION_ERRORS:  # out of memory, a NameError, ...: not this bug's evidence
                raise
            raise Failure(f"{call} raised {error}: {GREEDY}, never a division by 0", "greedy-nan",
                          exact=True) from None
        want = ref.next_token_probs(logits, **options)
        if got.shape == want.shape and np.isnan(got).any():
            raise Failure(f"{call} returned {show(got)}, expected {show(want)}: dividing by temperature 0 gives "
                          f"inf and inf - inf = NaN; {GREEDY}", "greedy-nan", exact=True, nonfinite=True)
        try:
            compare(got, want, call, logits, options, ref, GREEDY, kata)
        except Failure as failure:
            if failure.bug in AT_ZERO_UNTOLD:  # at T = 0 these are any greedy path gone wrong; T != 0 names them
                raise Failure(failure.message.split("\n")[0] + f"; {GREEDY}", details=failure.details) from None
            raise


# A wrong temperature at T = 0 looks like a greedy path written wrong (logits x 0 is a uniform row, probabilities
# "divided" by 0 and renormalised are the plain softmax): only the checks with T != 0 tell these bugs.
AT_ZERO_UNTOLD = ("temperature-multiplied", "temperature-after-softmax", "filter-before-temperature")


def test_float32(kata, ref, rng):
    logits = rows_apart(rng, (2, 9), [1.5, 3.0], 0.8, temperature=0.7, top_k=5, gap=1e-3).astype(np.float32)
    _check(kata, ref, logits, temperature=0.7, top_k=5, top_p=0.8)


PATHS = [{"temperature": t, "top_k": k, "top_p": p} for t in (1.0, 0.5, 0.0) for k in (None, 3) for p in (None, 0.8)]


@bug("mutates-input")
def test_logits_unchanged(kata, rng):
    # every path: temperature 1 (nothing to divide, so no new array), another, and 0; top-k and top-p on and
    # off; float64 (which asarray(logits, float64) does not copy) and float32; one row and a batch
    for i, options in enumerate(PATHS):
        for j, dtype in enumerate((np.float64, np.float32)):
            logits = rng.normal(size=((2, 6), (6,))[(i + j) % 2]).astype(dtype)
            try:
                _, (after, *_) = kata.next_token_probs.keeping_args(logits.copy(), **options)
            except LearnerError as error:
                if error.not_implemented:
                    raise
                continue  # a crash on this path is another test's failure
            if not np.array_equal(np.asarray(after), logits):
                raise Failure(f"{call_text('next_token_probs', logits=logits, **options)} changed its argument "
                              f"logits ({changed(logits, np.asarray(after))}): np.asarray(logits) is the caller's array "
                              "itself, so x[...] = -inf or x /= T writes into it; work on a new array (x = logits / T "
                              "or np.where(keep, x, -np.inf))",
                              "mutates-input", exact=True)


# --- sample_token --------------------------------------------------------------------------------

def _sample(kata, ref, probs, u):
    call = call_text("sample_token", probs=np.asarray(probs), u=u if np.ndim(u) == 0 else np.asarray(u))
    got = kata.sample_token(probs, u)
    return got, ref.sample_token(np.asarray(probs, np.float64), u), call


def _indices(got, want, call):
    """The learner's indices as an int array of the right shape, or a Failure saying what came back."""
    array = as_array(got, call)
    if array.shape != np.shape(want) or array.dtype.kind not in "iu":
        raise Failure(f"{call} returned {show(got)} ({array.dtype}, shape {array.shape}), expected "
                      f"{show(want)}: an int array of shape probs.shape[:-1] = {np.shape(want)}")
    return array


def _compare_indices(got, want, call, probs, u, why="the smallest i with cumsum(probs)[i] > u"):
    got = _indices(got, want, call)
    if np.array_equal(got, want):
        return
    matched = Suspects(SAMPLE_VARIANTS, np.asarray(probs, np.float64), u).match(got, np.asarray(want), 0, 0)
    detail = f"{call} returned {show(got)}, expected {show(np.asarray(want))}"
    if matched:
        raise Failure(f"{detail}: {matched[1]}", matched[0], exact=True)
    raise Failure(f"{detail}: {why}")


def test_sample_returns_an_integer(kata, ref):
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    got, want, call = _sample(kata, ref, probs, 0.35)
    if isinstance(got, bool) or not (isinstance(got, int) or (isinstance(got, np.ndarray) and got.shape == ()
                                                              and got.dtype.kind in "iu")):
        raise Failure(f"{call} returned {show(got)} ({type(got).__name__}), expected the integer {want}: 1-D probs "
                      "and a scalar u give one int")
    if int(got) != want:
        raise Failure(f"{call} returned {int(got)}, expected {want}: the cumulative sums are .1, .3, .6, 1 and "
                      "0.3 < 0.35 < 0.6")


@bug("sample-off-by-one")
def test_sample_on_a_boundary(kata, ref):
    # u on a boundary, and u inside a slice (where the off-by-one is right): the name needs the learner to pick
    # the token before the boundary on every boundary call (at least two) and to be right inside the slices; a
    # draw that is wrong some other way can land on the same token once (the rank in a sorted copy, say)
    probs = np.array([0.25, 0.25, 0.5])  # cumulative sums 0.25, 0.5, 1.0, exact in binary
    rows = np.array([[0.0, 0.5, 0.5, 0.0], [0.125, 0.375, 0.0, 0.5], [0.5, 0.0, 0.25, 0.25]])
    why = "a token of probability 0 is never drawn; u on a boundary goes to the right"
    calls = [(probs, 0.25, ""), (probs, 0.5, ""), (rows, np.array([0.0, 0.5, 0.75]), why),  # row 0: u = 0 never
             (probs, 0.375, ""), (rows, np.array([0.25, 0.3, 0.6]), "")]  # draws token 0 (p = 0); then middles
    runs = []
    for probs_in, u, why_here in calls:
        got, want, call = _sample(kata, ref, probs_in, u)
        runs.append((_indices(got, want, call), np.asarray(want), call, probs_in, u, why_here))
    wrong = [run for run in runs if not np.array_equal(run[0], run[1])]
    if not wrong:
        return
    shifted = [np.asarray(SAMPLE_VARIANTS[0](probs_in, u)) for _, _, _, probs_in, u, _ in runs]
    telling = sum(not np.array_equal(off, run[1]) for off, run in zip(shifted, runs))
    got, want, call, probs_in, u, why_here = wrong[0]
    detail = f"{call} returned {show(got)}, expected {show(want)}"
    if telling >= 2 and all(np.array_equal(run[0], off) for run, off in zip(runs, shifted)):
        raise Failure(f"{detail}: {' '.join(SAMPLE_VARIANTS[0].__doc__.split())}", "sample-off-by-one", exact=True)
    raise Failure(f"{detail}: {why_here or 'the smallest i with cumsum(probs)[i] > u'}")


def _middles(rng, probs):
    """A u in the middle of one drawn token's slice of each row's cumulative sums (far from any boundary)."""
    cdf = np.cumsum(probs, axis=-1)
    pick = np.argmax(rng.random(probs.shape) * (probs > 0), axis=-1)[..., None]
    return (np.take_along_axis(cdf, pick, -1) - np.take_along_axis(probs, pick, -1) / 2)[..., 0]


def test_sample_rows(kata, ref, rng):
    probs = ref.next_token_probs(rng.normal(size=(2, 3, 6)) * 2, top_k=4)
    u = _middles(rng, probs)
    _compare_indices(*_sample(kata, ref, probs, u), probs, u)
    probs32 = probs.astype(np.float32)
    _compare_indices(*_sample(kata, ref, probs32, u[0]), probs32, u[0],
                     why="u of shape (3,) broadcasts against probs.shape[:-1] = (2, 3)")
    _compare_indices(*_sample(kata, ref, probs, 0.5), probs, 0.5, why="a scalar u is used for every row")


def test_sample_past_the_last_sum(kata, ref):
    probs = np.array([[0.2, 0.3, 0.5 - 1e-9, 0.0], [0.5, 0.5, 0.0, 0.0]])  # row 0 sums to 1 - 1e-9
    u = np.array([1 - 1e-10, 0.75])  # row 0: u = 1 - 1e-10 is past the last sum, 1 - 1e-9
    _compare_indices(*_sample(kata, ref, probs, u), probs, u,
                     why="row 0 sums to 1 - 1e-9 and u = 1 - 1e-10 is past it: when rounding leaves u past the last "
                         "cumulative sum, take the last token with probability > 0")


@bug("mutates-input")
def test_probs_unchanged(kata, ref, rng):
    # rows a rounding short of 1, so that normalising them in place shows
    for dtype, short in ((np.float64, 1e-12), (np.float32, 2.0**-22)):
        probs = (ref.next_token_probs(rng.normal(size=(2, 5))) * (1 - short)).astype(dtype)
        u = np.array([0.3, 0.9])
        _, (after, *_) = kata.sample_token.keeping_args(probs.copy(), u)
        if not np.array_equal(np.asarray(after), probs):
            raise Failure(f"{call_text('sample_token', probs=probs, u=u)} changed its argument probs "
                          f"({changed(probs, np.asarray(after))}): work on a new array", "mutates-input", exact=True)


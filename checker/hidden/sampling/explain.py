"""Kata 09's inputs with known nuclei, and failure messages that show the learner's kept set beside the
right one, most probable first, with the sums that decide it."""

import numpy as np

from checker.hidden.sampling.variants import DISTRIBUTION_VARIANTS, pipeline
from checker.hidden.sampling.telling import confirmed
from checker.engine.testkit import Failure, Suspects, close, expect_precision, expect_shape, scale_between, show, \
    tolerance

BOUNDARY_GAP = 1e-5  # how far top_p sits from a sum sorted before a token (SPEC promises >= 1e-6)
SHOWN_RANKS = 10


# --- inputs --------------------------------------------------------------------------------------

def nucleus_logits(rng, probs, shuffle=True):
    """Logits whose softmax is `probs` (shuffled into a random vocabulary order), shifted by a random offset."""
    probs = np.asarray(probs, np.float64)
    logits = np.log(probs) + rng.uniform(-3, 3)
    return rng.permutation(logits) if shuffle else logits


def _margin(logits, top_p, options):
    """How close top_p comes to a sum sorted before a token, in the distribution top-p is measured on."""
    probs = pipeline(logits, **options)
    ranked = -np.sort(-probs, axis=-1)
    return float(np.abs(np.cumsum(ranked, axis=-1) - ranked - top_p).min())


def rows_apart(rng, shape, scales, top_p, gap=1e-4, **options):
    """Random logits, each row at its own scale (so rows keep different numbers of tokens), redrawn until
    every sum sorted before a token is at least `gap` from top_p."""
    for _ in range(200):
        logits = rng.normal(size=shape) * np.asarray(scales)[..., None]
        if _margin(logits, top_p, options) >= gap:
            return logits
    raise RuntimeError("no draw kept its sums away from top_p")


# --- explaining ----------------------------------------------------------------------------------

def _digits(got, want):
    """got and want as text, with just enough digits to tell them apart."""
    for digits in range(3, 10):
        a, b = f"{got:.{digits}g}", f"{want:.{digits}g}"
        if a != b:
            break
    return a, b


def _tokens(kept, probs):
    """The kept tokens, most probable first: `[3, 0, 5]`."""
    order = np.argsort(-probs, kind="stable")
    return "[" + ", ".join(str(int(i)) for i in order if kept[i]) + "]"


def kept_text(before, got_kept, want_kept, top_p):
    """The distribution top-p is measured on, most probable first, with each token's sum before it and who
    kept it: the learner beside the right answer."""
    order = np.argsort(-before, kind="stable")
    ranked = before[order]
    sums = np.cumsum(ranked) - ranked
    kept_ranks = np.flatnonzero(got_kept[order] | want_kept[order])
    shown = min(len(order), max(kept_ranks, default=0) + 2, SHOWN_RANKS)
    crossing = np.flatnonzero(want_kept[order])[-1]
    lines = [f"sorted by probability (after temperature and top-k), top_p = {top_p:.6g}:",
             "token  probability  sum before  cumulative  yours  expected"]
    for rank in range(shown):
        i = order[rank]
        note = "  <- reaches top_p: kept" if rank == crossing and rank + 1 < len(order) else ""
        lines.append(f"{i:>5}  {ranked[rank]:11.6f}  {sums[rank]:10.6f}  {sums[rank] + ranked[rank]:10.6f}  "
                     f"{'kept' if got_kept[i] else '-':>5}  "
                     f"{'kept' if want_kept[i] else '-':>8}{note}")
    if shown < len(order):
        hidden = len(order) - shown
        lines.append(f"  ... {hidden} less probable token{'s' if hidden > 1 else ''}")
    return "\n      ".join(lines)


def _detail(got, want, row, logits, options, ref, rtol, atol):
    """What the first wrong row does, in words."""
    g, w = got[row], want[row]
    where = f"row {list(row)}" if row else "the row"
    if not np.isfinite(g).all():
        return f"{where} returned {show(g, 4)}, expected {show(w, 4)}"
    if not np.array_equal(g != 0, w != 0):
        top_p = options.get("top_p")
        if top_p is not None and top_p < 1:
            keep = {k: v for k, v in options.items() if k != "top_p"}
            before = ref.next_token_probs(logits[row], **keep)
            return f"{where} kept tokens {_tokens(g != 0, w)}, expected {_tokens(w != 0, w)}; " + \
                kept_text(before, g != 0, w != 0, top_p)
        return f"{where} kept tokens {_tokens(g != 0, w)}, expected {_tokens(w != 0, w)} (most probable first)"
    if not np.isclose(g.sum(), 1, rtol=rtol, atol=atol * g.size):
        return f"{where} sums to {_digits(g.sum(), 1.0)[0]}, expected 1: returned {show(g, 4)}, expected {show(w, 4)}"
    j = int(np.flatnonzero(~close(g, w, rtol, atol))[0])
    return f"{where}: token {j} got %s, expected %s" % _digits(g[j], w[j]) + \
        (f" (returned {show(g, 4)}, expected {show(w, 4)})" if g.size <= 12 else "")


def _unnormalised(got, want):
    """no-renormalize seen in what the output does: the right tokens, in the right proportions, not summing
    to 1."""
    if not np.isfinite(got).all() or not np.array_equal(got != 0, want != 0):
        return None
    scales = [scale_between(g, w) for g, w in zip(got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1]))]
    if all(c is not None for c in scales) and any(abs(c - 1) > 1e-3 for c in scales):
        return "no-renormalize", "the kept probabilities were not renormalised: divide them by their sum"
    return None


def compare(got, want, call, logits, options, ref, why="", kata=None):
    """Fail unless the learner's probabilities match; name the bug whose output they equal, if any, once the
    learner's file (`kata`) confirms it where telling.py asks for a second opinion."""
    inputs = (np.asarray(logits),)
    expect_shape(got, want.shape, call, why="one probability per token, the leading dims of logits kept")
    expect_precision(got, inputs, call)
    rtol, atol = tolerance(got, *inputs)
    if close(got, want, rtol, atol).all():
        return
    x64 = np.asarray(logits, np.float64)
    row = tuple(int(i) for i in np.argwhere(~close(got, want, rtol, atol).all(axis=-1))[0])
    detail = f"{call}: " + _detail(got, want, row, x64, options, ref, rtol, atol)
    matched = Suspects(DISTRIBUTION_VARIANTS, x64, **options).match(got, want, rtol, atol) or \
        _unnormalised(got, want)
    if matched and not confirmed(kata, matched[0]):
        matched = None  # this call cannot tell the bug from its rivals, and the calls that can do not show it
    nonfinite = bool((~np.isfinite(got) & np.isfinite(want)).any())
    if matched:
        raise Failure(f"{detail}\n    {matched[1]}", matched[0], exact=True, nonfinite=nonfinite)
    raise Failure(detail + (f"\n    {why}" if why else ""), nonfinite=nonfinite)


def unshifted(got, want, call, logits, rerun):
    """Fail naming no-max-shift by what it does, whatever form the softmax takes (exp / sum, exp(x - logsumexp)):
    a row whose logits reach 1e4 comes out wrong (a shift by any row's or the batch's maximum gets it right),
    while `rerun` of the same logits shifted to a maximum of 0 comes out right."""
    if got.shape != want.shape or np.isfinite(got).all():
        return
    wrong = ~close(got, want, *tolerance(got)).all(axis=-1) & (np.asarray(logits).max(axis=-1) > 1000)
    if not wrong.any():
        return
    small = rerun(logits - logits.max(axis=-1, keepdims=True))
    if small.shape == want.shape and close(small, want, *tolerance(small)).all():
        row = tuple(int(i) for i in np.argwhere(wrong)[0])
        where = f"row {list(row)}" if row else "the row"
        raise Failure(f"{call}: {where} returned {show(got[row], 4)}, expected {show(want[row], 4)}: exp of logits "
                      "near 1e4 overflows to inf (and near -1e4 underflows to 0), and inf/inf or 0/0 is NaN; the "
                      "same logits shifted to a maximum of 0 come out right: subtract each row's maximum before exp",
                      "no-max-shift", exact=True, nonfinite=True)

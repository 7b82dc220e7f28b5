"""What code carrying each catalogued bug of kata 14 computes, to recognise it by its output.

One clean speculative step, written apart from the reference, with a switch for each choice a mistake
changes: the acceptance test, which target row a drafted token meets, what a rejection draws from and
how that residual is built, whether the walk stops at a rejection, whether a bonus is drawn, and which
side of a cumulative boundary a draw takes. Each variant is that step with one switch turned (a bug of
several written forms has a variant a form). Rivals are bugs outside the catalogue, never named: where
one explains the learner's answers as well, nothing is named.
"""

from dataclasses import dataclass, replace

import numpy as np

from checker.engine.testkit import variant


@dataclass(frozen=True)
class Rules:
    accept: str = "ratio"  # u < pt/pd; "inverted" u < pd/pt; "target" u < pt; "greedy" x is pt's argmax;
    # rivals: "ratio-or-equal" u <= pt/pd, "flipped" u > pt/pd, "draft" u < pd
    rows: str = "same"  # "shifted": token i meets p_target[i + 1] (bonus from row gamma); "bonus-early": only the
    # bonus is drawn from row gamma - 1
    after_reject: str = "residual"  # "target": p_target[i]; "argmax": pt[i]'s argmax; rival "reversed": max(0, pd - pt)
    residual: str = "clamped"  # "unclamped": pt - pd over its clamped sum; "unclamped-raw": pt - pd, no division;
    # "unclamped-own": pt - pd over its own sum; "unclamped-guarded": the same, p_target where that sum is 0;
    # "unnormalized": max(0, pt - pd) undivided
    walk: str = "stop"  # "skip": later tokens still tested, rejected ones left out, the draw at the first
    # rejection last; "replace": each rejected token replaced by its residual draw
    bonus: str = "draw"  # "none": no bonus; rival "always": a bonus after a rejection's draw too
    draw: str = "right"  # "left": cdf >= u (u on a boundary picks the previous token)
    search: str = "scan"  # "scan": the first index whose cumulative sum passes u, else the fallback;
    # "sorted": np.searchsorted on the cumulative sums (a binary search: not a scan when they fall)
    fallback: str = "last-positive"  # past the last sum: "last-positive" token, "last" index, "none" (index V)
    rejection_u: str = "sample"  # rival "accept": the residual drawn with the rejected token's u_accept


CLEAN = Rules()


def draw(p, u, rules=CLEAN):
    """Kata 09's inverse-CDF draw from `p` (any vector: a buggy residual may not sum to 1, or fall)."""
    p = np.asarray(p, np.float64)
    cdf = np.cumsum(p)  # (V,)
    side = "right" if rules.draw == "right" else "left"
    if rules.search == "sorted":
        index = int(np.searchsorted(cdf, u, side=side))
    else:
        passed = cdf > u if rules.draw == "right" else cdf >= u
        index = int(np.argmax(passed)) if passed.any() else len(p)
    if index < len(p):
        return index
    if rules.fallback == "last":
        return len(p) - 1
    if rules.fallback == "none":
        return len(p)
    positive = np.flatnonzero(p > 0)
    return int(positive[-1]) if positive.size else len(p) - 1


def residual(p_target, p_draft, how="clamped"):
    """The residual as code carrying a residual bug builds it, along the last axis."""
    pt, pd = np.asarray(p_target, np.float64), np.asarray(p_draft, np.float64)
    if how == "target":
        return pt
    if how == "unclamped-raw":
        return pt - pd
    excess = np.maximum(pt - pd, 0.0)  # (..., V)
    if how == "unnormalized":
        return excess
    total = excess.sum(axis=-1, keepdims=True)  # (..., 1)
    if how == "clamped":
        return np.where(total > 0, excess / np.where(total > 0, total, 1.0), pt)
    with np.errstate(all="ignore"):  # the buggy forms divide by zero where they do
        if how == "unclamped":
            return (pt - pd) / total
        if how == "unclamped-own":
            return (pt - pd) / (pt - pd).sum(axis=-1, keepdims=True)
        if how == "unclamped-guarded":  # a sum of exactly 0 (exact inputs) guarded: p_target there
            own = (pt - pd).sum(axis=-1, keepdims=True)  # (..., 1)
            return np.where(own == 0, pt, (pt - pd) / np.where(own == 0, 1.0, own))
        if how == "reversed":
            back = np.maximum(pd - pt, 0.0)
            return back / back.sum(axis=-1, keepdims=True)
        if how == "over-target-mass":  # divided by the target's mass on the tokens it keeps
            return excess / (pt * (excess > 0)).sum(axis=-1, keepdims=True)
    raise ValueError(how)


def _accepted(rules, pt_row, pd_row, x, u):
    ratio = pt_row[x] / pd_row[x]
    if rules.accept == "inverted":
        return u < (pd_row[x] / pt_row[x] if pt_row[x] > 0 else np.inf)
    if rules.accept == "target":
        return u < pt_row[x]
    if rules.accept == "draft":
        return u < pd_row[x]
    if rules.accept == "greedy":
        return x == int(np.argmax(pt_row))
    if rules.accept == "ratio-or-equal":
        return u <= ratio
    if rules.accept == "flipped":
        return u > ratio
    return u < ratio


def _rejection_draw(rules, pt_row, pd_row, u):
    if rules.after_reject == "argmax":
        return int(np.argmax(pt_row))
    how = {"target": "target", "reversed": "reversed", "over-target-mass": "over-target-mass"}.get(
        rules.after_reject, rules.residual)
    return draw(residual(pt_row, pd_row, how), u, rules)


def step(p_draft, p_target, draft_tokens, u_accept, u_sample, rules=CLEAN, branch=None):
    """The new tokens of one speculative step under `rules`; `branch`, a dict, receives what happened:
    `accepted` (the tokens kept), `rejected_at` (None when all were accepted), `drawn_from` (in words)."""
    pd, pt = np.asarray(p_draft, np.float64), np.asarray(p_target, np.float64)
    tokens = [int(t) for t in np.asarray(draft_tokens, np.int64).reshape(-1)]
    u_accept = np.asarray(u_accept, np.float64).reshape(-1)
    gamma, shift = len(tokens), int(rules.rows == "shifted")
    new, kept, rejected_at, drawn = [], [], None, None
    for i, x in enumerate(tokens):
        row = pt[min(i + shift, gamma)]
        if _accepted(rules, row, pd[i], x, u_accept[i]):
            new.append(x)
            kept.append(x)
            continue
        token = _rejection_draw(rules, row, pd[i], u_accept[i] if rules.rejection_u == "accept" else u_sample)
        if rejected_at is None:
            rejected_at, drawn = i, (i + shift, token)
        if rules.walk == "replace":
            new.append(token)
        elif rules.walk == "stop":
            new.append(token)
            break
    if rules.walk == "skip" and rejected_at is not None:
        new.append(drawn[1])
    if rules.bonus != "none" and (rejected_at is None or rules.bonus == "always"):
        bonus_row = gamma - 1 if rules.rows == "bonus-early" and gamma > 0 else gamma
        new.append(draw(pt[bonus_row], u_sample, rules))
    if branch is not None:
        branch.update(accepted=kept, rejected_at=rejected_at, drawn_row=None if drawn is None else drawn[0])
    return new


def _step_variant(bug_id, doc, **switches):
    rules = replace(CLEAN, **switches)

    def run(p_draft, p_target, draft_tokens, u_accept, u_sample):
        return step(p_draft, p_target, draft_tokens, u_accept, u_sample, rules)

    run = variant(bug_id, of="step")(run)
    run.__doc__, run.rules = doc, rules
    run.__name__ = f"step_{bug_id}_{len(STEP_VARIANTS)}"
    STEP_VARIANTS.append(run)
    return run


STEP_VARIANTS = []


def CLEAN_STEP(p_draft, p_target, draft_tokens, u_accept, u_sample):  # noqa: N802 - the right rule, as a run
    return step(p_draft, p_target, draft_tokens, u_accept, u_sample)


_step_variant("spec-ratio-inverted", "the test was u < p_draft / p_target, the ratio upside down: accept iff "
              "u < p_target[i, x] / p_draft[i, x]", accept="inverted")
_step_variant("spec-accept-if-target-likes", "the test was u < p_target[i, x], the draft's probability left "
              "out: accept iff u < p_target[i, x] / p_draft[i, x]", accept="target")
_step_variant("spec-greedy-accept", "a drafted token was kept iff it is the target's argmax (and a "
              "rejection drew from the residual): accept iff u < p_target / p_draft", accept="greedy")
_step_variant("spec-greedy-accept", "a drafted token was kept iff it is the target's argmax, and a rejection "
              "took the target's argmax: accept iff u < p_target / p_draft, then draw from the residual",
              accept="greedy", after_reject="argmax")
for _form in ("scan", "sorted"):
    _step_variant("spec-residual-not-clamped", "after a rejection the draw used (p_target - p_draft) divided by its "
                  "own sum, which is 0 up to rounding: clamp it, max(0, p_target - p_draft), then normalise",
                  residual="unclamped-own", search=_form)
    _step_variant("spec-residual-not-clamped", "after a rejection the draw used (p_target - p_draft) divided by its "
                  "own sum, p_target where that sum is exactly 0: clamp it, max(0, p_target - p_draft), then "
                  "normalise (an exact 0 sum then drew from p_target itself)", residual="unclamped-guarded",
                  search=_form)
    _step_variant("spec-residual-not-clamped", "after a rejection the draw used p_target - p_draft with its "
                  "negative entries: clamp it, max(0, p_target - p_draft), then normalise",
                  residual="unclamped", search=_form)
    _step_variant("spec-residual-not-clamped", "after a rejection the draw used p_target - p_draft, negative "
                  "entries and all: clamp it, max(0, p_target - p_draft), then normalise",
                  residual="unclamped-raw", search=_form)
for _form, _fallback in (("scan", "last-positive"), ("scan", "last"), ("sorted", "none"), ("sorted", "last")):
    _step_variant("spec-residual-unnormalized", "after a rejection the draw used max(0, p_target - p_draft) "
                  "without dividing by its sum: its cumulative sums stop short of 1, so a large u falls past "
                  "them; normalise the residual first", residual="unnormalized", search=_form, fallback=_fallback)
_step_variant("spec-resample-target", "after a rejection the token was drawn from p_target[i] itself: draw "
              "from the residual max(0, p_target[i] - p_draft[i]), normalised, or the output is no longer "
              "distributed as the target's", after_reject="target")
_step_variant("spec-no-bonus", "with every drafted token accepted no bonus token was drawn: append one drawn "
              "from p_target[gamma] with u_sample", bonus="none")
_step_variant("spec-continues-after-reject", "after a rejection the later drafted tokens were still tested "
              "(and kept when they passed): stop at the first rejection", walk="skip")
_step_variant("spec-continues-after-reject", "each rejected token was replaced by a residual draw and the walk "
              "went on: stop at the first rejection, after its one draw", walk="replace")
_step_variant("spec-rows-shifted", "drafted token i was tested against p_target[i + 1]: row i of p_target is "
              "the target's distribution for the same position as p_draft[i]", rows="shifted")
_step_variant("spec-rows-shifted", "the bonus token came from p_target[gamma - 1]: after all gamma drafted "
              "tokens the target's next distribution is row gamma", rows="bonus-early")
for _form in ("scan", "sorted"):
    _step_variant("sample-off-by-one", "a draw with u on a cumulative boundary took the token before it "
                  "(cdf >= u, or searchsorted side='left'): the first index whose cumulative sum EXCEEDS u",
                  draw="left", search=_form)

STEP_RIVAL_RULES = {  # bugs outside the catalogue: rival explanations, never named
    "accepts-on-equal": {"accept": "ratio-or-equal"},
    "accept-flipped": {"accept": "flipped"},
    "accepts-by-draft": {"accept": "draft"},
    "residual-reversed": {"after_reject": "reversed"},
    "bonus-after-rejection": {"bonus": "always"},
    "fallback-last-index": {"fallback": "last"},
    "residual-over-target-mass": {"after_reject": "over-target-mass"},
    "rejection-drawn-with-u-accept": {"rejection_u": "accept"},
}


def _step_rival(name, switches):
    rules = replace(CLEAN, **switches)

    def run(p_draft, p_target, draft_tokens, u_accept, u_sample):
        return step(p_draft, p_target, draft_tokens, u_accept, u_sample, rules)

    run.rival_of, run.__name__, run.rules = name, f"rival_{name}", rules
    return run


STEP_RIVALS = [_step_rival(name, switches) for name, switches in STEP_RIVAL_RULES.items()]


# --- residual_distribution -------------------------------------------------------------------------

@variant("spec-residual-unnormalized", of="residual")
def _residual_unnormalized(p_target, p_draft):
    """max(0, p_target - p_draft) was returned without dividing by its sum: each row must sum to 1"""
    return residual(p_target, p_draft, "unnormalized")


@variant("spec-resample-target", of="residual")
def _residual_is_target(p_target, p_draft):
    """p_target came back unchanged: the residual is max(0, p_target - p_draft), normalised"""
    return residual(p_target, p_draft, "target")


@variant("spec-residual-not-clamped", of="residual")
def _residual_unclamped_guarded(p_target, p_draft):
    """p_target - p_draft over its own sum, p_target where that sum is exactly 0: clamp it, max(0, .), first
    (where the sum is exactly 0 this gives p_target itself: no sign of a resample from the target)"""
    return residual(p_target, p_draft, "unclamped-guarded")


RESIDUAL_VARIANTS = [_residual_unnormalized, _residual_is_target, _residual_unclamped_guarded]


def _residual_reversed(p_target, p_draft):
    return residual(p_target, p_draft, "reversed")


_residual_reversed.rival_of = "residual-reversed"
RESIDUAL_RIVALS = [_residual_reversed]


def proportional_to_difference(got, p_target, p_draft, atol):
    """True when every row of `got` is c * (p_target - p_draft) for one c of its own (any sign, any size) and
    holds a negative entry: the residual without max(0, .), whatever it was divided by."""
    got = np.asarray(got, np.float64)
    diff = np.asarray(p_target, np.float64) - np.asarray(p_draft, np.float64)  # (..., V)
    if got.shape != diff.shape or not np.isfinite(got).all():
        return False
    rows_g, rows_d = got.reshape(-1, got.shape[-1]), diff.reshape(-1, diff.shape[-1])  # (rows, V)
    negative = False
    for g, d in zip(rows_g, rows_d):
        norm = float(d @ d)
        if norm == 0:
            continue
        c = float(g @ d) / norm
        scale = max(float(np.abs(g).max()), 1e-300)
        if c == 0 or np.abs(g - c * d).max() > atol * scale:
            return False
        negative |= bool((g < 0).any())
    return negative

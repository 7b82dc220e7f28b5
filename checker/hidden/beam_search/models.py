"""Kata 12's inputs: seeded random bigram models, and the searches on them whose answer no honest order of
floating-point operations can change.

A case is the keyword arguments of one call. Random cases are redrawn until every comparison the right search
makes (neighbours in each step's ranking, as far as the walk reads it; the best finished score against the
others) is at least MARGIN apart or an exact tie of -inf: float32 sums, or a score written sum * n ** -p, then
decide the same way. Cases that show a bug are found by running the variants: a case tells bug X when one of
X's variants answers differently from the right search and from every other bug's variant.
"""

import numpy as np

from checker.hidden.beam_search import stored
from checker.hidden.beam_search.variants import BEAM_VARIANTS, GREEDY_VARIANTS, RIVAL_RULES, RIVALS, Rules, encoded, \
    greedy, search

MARGIN = 1e-3
DRAWS = 60  # random cases tried to find those that show a catalogued bug: a bound on the checker's own time
RIVAL_DRAWS = 120  # and one outside the catalogue, rarer in random draws
LENGTH_PENALTIES = (0.0, 0.5, 1.0, 2.0)


def log_softmax(x):
    x = np.asarray(x, np.float64)
    peak = x.max(axis=-1, keepdims=True)
    return x - peak - np.log(np.exp(x - peak).sum(axis=-1, keepdims=True))


def random_model(rng, vocab, eos, eos_bias=0.0, blocked=0.0, scale=1.5):
    """(V, V) log-probabilities: rows log-softmax of normal logits; eos's column shifted by `eos_bias`
    (-inf: eos is never emitted); a share `blocked` of the other entries -inf, each row keeping a finite one."""
    x = rng.normal(size=(vocab, vocab)) * scale
    x[:, eos] += eos_bias
    if blocked:
        cut = rng.random((vocab, vocab)) < blocked
        cut[:, eos] = False
        cut[np.arange(vocab), np.argmax(np.where(np.arange(vocab) == eos, -np.inf, x), axis=1)] = False
        x[cut] = -np.inf
    return log_softmax(x)


def permuted_model(rng, vocab, eos):
    """(V, V) log-probabilities whose rows are permutations of one log-softmax row with repeated values: sums
    over two steps tie exactly (x + y = y + x in any precision), so ties meet the tie rules."""
    levels = rng.normal(size=3) * 1.5
    base = log_softmax(levels[rng.integers(3, size=vocab)])
    return np.stack([rng.permutation(base) for _ in range(vocab)])


def _gaps(values, ties=False):
    """Gaps between neighbours of a list of sums, -inf ties left out (they tie exactly in any arithmetic), and
    exact ties too when `ties` (a permuted model's two-step sums)."""
    return [abs(a - b) for a, b in zip(values, values[1:])
            if (np.isfinite(a) or np.isfinite(b)) and not (ties and a == b)]


def margin(case, ties=False):
    """How close the right search comes to a decision that rounding could turn."""
    steps = []
    _, _, finished = search(**case, steps=steps)
    gaps = [MARGIN * 10]
    for step in steps:
        walked = len(step.fates) - step.fates.count("unused") + 1
        gaps += _gaps([total for _, total in step.ranked[:walked]], ties)
    scores = sorted((total / len(tokens) ** case["length_penalty"] for tokens, total in finished), reverse=True)
    gaps += _gaps(scores[:2], ties) if len(scores) > 1 else []
    return min(gaps)


def greedy_margin(case):
    """How close greedy comes to a tie between the best two tokens of a row it reads."""
    table, last, gaps = np.asarray(case["logprobs"]), case["prompt"][-1], [MARGIN * 10]
    for token in greedy(**case):
        top = np.sort(table[last])[::-1]
        gaps += _gaps(list(top[:2]))
        last = token
    return min(gaps)


def raw_case(rng, vocab=(4, 7), widths=(1, 5), max_new=(2, 6), prompt=(1, 3), eos_bias=(-1.0, 1.5),
             blocked=0.0, penalties=LENGTH_PENALTIES, ties=False, scale=1.5):
    """One random beam_search case, its margin unchecked; ranges are (low, high) inclusive. With `ties`, the
    model is a permuted one (use max_new <= 2)."""
    v = int(rng.integers(vocab[0], vocab[1] + 1))
    eos = int(rng.integers(v))
    bias = eos_bias if np.isscalar(eos_bias) else rng.uniform(*eos_bias)
    model = permuted_model(rng, v, eos) if ties else random_model(rng, v, eos, bias, blocked, scale)
    model.flags.writeable = False  # cases are kept for the next file: no one may change them
    length = int(rng.integers(prompt[0], prompt[1] + 1))
    return {"logprobs": model, "prompt": [int(t) for t in rng.integers(v, size=length)],
            "beam_width": int(rng.integers(widths[0], widths[1] + 1)),
            "max_new": int(rng.integers(max_new[0], max_new[1] + 1)), "eos": eos,
            "length_penalty": float(rng.choice(penalties))}


def steady(case, ranges):
    """The case keeps its decisions MARGIN apart (exact ties allowed on a permuted model)."""
    return margin(case, ranges.get("ties", False)) >= MARGIN


def draw_case(rng, **ranges):
    """One random beam_search case (see raw_case for the ranges), redrawn until its decisions keep MARGIN."""
    for _ in range(500):
        case = raw_case(rng, **ranges)
        if steady(case, ranges):
            return case
    raise RuntimeError("no draw kept its decisions apart")


def draw_greedy_case(rng, vocab=(4, 7), max_new=(2, 6), eos_bias=(-1.0, 1.5)):
    for _ in range(500):
        v = int(rng.integers(vocab[0], vocab[1] + 1))
        eos = int(rng.integers(v))
        bias = eos_bias if np.isscalar(eos_bias) else rng.uniform(*eos_bias)
        model = random_model(rng, v, eos, bias)
        model.flags.writeable = False
        case = {"logprobs": model, "prompt": [int(t) for t in rng.integers(v, size=2)],
                "max_new": int(rng.integers(max_new[0], max_new[1] + 1)), "eos": eos}
        if greedy_margin(case) >= MARGIN:
            return case
    raise RuntimeError("no draw kept its argmaxes apart")


# --- cases that tell one bug from the others --------------------------------------------------------

SCORE_RTOL, SCORE_ATOL = 1e-4, 1e-5  # float32 sums of a few log-probabilities are far closer than this


def agree(got, want):
    """`got` is the answer `want` is (both encoded): the same tokens, and the same score unless want's is NaN
    (none to compare). -inf matches -inf; a NaN score in `got` matches only a NaN."""
    if got.shape != want.shape or not np.array_equal(got[:-1], want[:-1]):
        return False
    x, y = got[-1], want[-1]
    if np.isnan(y) or x == y:
        return True
    return bool(np.isfinite(x) and np.isfinite(y) and abs(x - y) <= SCORE_ATOL + SCORE_RTOL * abs(y))


def _outputs(variants, case):
    found = []
    for run in variants:
        try:
            with np.errstate(all="ignore"):
                found.append((run, run(**case)))
        except Exception:  # noqa: BLE001 - a variant that cannot follow this input tells nothing here
            continue
    return found


def tells(case, bug, variants=BEAM_VARIANTS, right=None, rivals=RIVALS):
    """The variants of `bug` whose answer on `case` differs from the right one, from every other bug's, and from
    every rival's (a bug outside the catalogue that could give the same answer)."""
    right = encoded(*search(**case)[:2]) if right is None else right
    unscored = right.copy()
    unscored[-1] = np.nan  # a variant that reports no score tells only where its tokens differ
    mine = [(run, out) for run, out in _outputs([v for v in variants if v.variant_of == bug], case)
            if not agree(out, unscored if np.isnan(out[-1]) else right)]
    for other in [v for v in variants if v.variant_of != bug] + list(rivals):  # one at a time: most cases fail early
        if not mine:
            break
        for _, out in _outputs([other], case):
            mine = [(run, mine_out) for run, mine_out in mine if not (agree(mine_out, out) or agree(out, mine_out))]
    return [run for run, _ in mine]


@stored.search(raw_case)
def telling_cases(bug, seed, count=2, **ranges):
    """`count` cases on which bug's variants are told apart, one more when that tells a form of the bug the
    others did not, as far as DRAWS draws go; at least two (drawn on from seed 0 if need be, so the test can
    always fail and name). Found here as generator states (see stored.search)."""
    forms = {run for run in BEAM_VARIANTS if run.variant_of == bug}
    found, told = [], set()
    for stream, draws in ((seed, DRAWS), (0, 40 * DRAWS)):
        rng = np.random.default_rng([stream, sum(map(ord, bug))])
        for _ in range(draws):
            state, case = stored.state_of(rng), raw_case(rng, **ranges)
            shown = set(tells(case, bug))
            if (shown - told or (shown and len(found) < count)) and steady(case, ranges):
                found.append(state)
                told |= shown
            if len(found) >= 2 and (stream == 0 or len(found) >= count and (told == forms or len(found) > count)):
                return tuple(found)
        if len(found) >= 2:  # a name needs two wrong answers (explain.Evidence): draw on for a second
            return tuple(found)
    if found:
        return tuple(found)
    raise RuntimeError(f"no draw shows {bug}")


def differs(case, rules):
    """True when a search under `rules` (a bug outside the catalogue) answers `case` differently."""
    return not agree(encoded(*search(**case, rules=rules)[:2]), encoded(*search(**case)[:2]))


@stored.search(raw_case)
def cases_showing(name, seed, count=2, **ranges):
    """Random cases on which the search with the rival rules `name` answers differently from the right one
    (with "a+b", each of the rivals a and b does): up to `count` within RIVAL_DRAWS draws of the seed's own, and
    at least one (drawn on from seed 0 if need be, so the test can always fail)."""
    rules = [Rules(**RIVAL_RULES[part]) for part in name.split("+")]
    found = []
    for stream, draws in ((seed, RIVAL_DRAWS), (0, 20 * RIVAL_DRAWS)):
        rng = np.random.default_rng([stream, sum(map(ord, name))])
        for _ in range(draws):
            state, case = stored.state_of(rng), raw_case(rng, **ranges)
            if all(differs(case, r) for r in rules) and steady(case, ranges):
                found.append(state)
                if len(found) == count or stream == 0:
                    return tuple(found)
        if found:
            return tuple(found)
    raise RuntimeError(f"no draw shows {name}")


def tie_case(rng):
    """A greedy case on a permuted model (ties everywhere)."""
    v = int(rng.integers(4, 7))
    eos = int(rng.integers(v))
    model = permuted_model(rng, v, eos)
    model.flags.writeable = False
    return {"logprobs": model, "prompt": [int(t) for t in rng.integers(v, size=2)],
            "max_new": int(rng.integers(2, 5)), "eos": eos}


@stored.search(tie_case)
def greedy_tie_cases(seed, count=1):
    """Greedy cases on permuted models where a tie between the best tokens of a row decides: greedy taking the
    highest id of equal maxima answers differently. Up to `count` within RIVAL_DRAWS draws, at least one."""
    found = []
    for stream, draws in ((seed, RIVAL_DRAWS), (0, 20 * RIVAL_DRAWS)):
        rng = np.random.default_rng([stream, 7])
        for _ in range(draws):
            state, case = stored.state_of(rng), tie_case(rng)
            if greedy(**case) != greedy(**case, highest=True):
                found.append(state)
                if len(found) == count or stream == 0:
                    return tuple(found)
        if found:
            return tuple(found)
    raise RuntimeError("no draw shows a greedy tie")


@stored.search(draw_greedy_case)
def greedy_telling_cases(bug, seed, count=2):
    """Greedy cases on which the bug's variant answers differently from greedy and from the other bug's: up to
    `count` within DRAWS draws, and at least one (drawn on from seed 0 if need be)."""
    found = []
    for stream, draws in ((seed, DRAWS), (0, 40 * DRAWS)):
        rng = np.random.default_rng([stream, sum(map(ord, bug))])
        for _ in range(draws):
            state, case = stored.state_of(rng), draw_greedy_case(rng)
            if tells(case, bug, GREEDY_VARIANTS, encoded(greedy(**case)), rivals=()):
                found.append(state)
                if len(found) == count or stream == 0:
                    return tuple(found)
        if found:
            return tuple(found)
    raise RuntimeError(f"no draw shows {bug}")


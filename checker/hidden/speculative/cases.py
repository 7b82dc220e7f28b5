"""The inputs of kata 14's hidden tests: seeded distributions, drafted tokens drawn from the draft, and
uniforms kept MARGIN away from every boundary the right rule or a catalogued bug's rule has (the ratio,
its inverse, p_target itself; the cumulative sums of every distribution a draw may use), so float32
arithmetic inside never changes an answer. Boundary cases are dyadic: every probability a multiple of
1/32, so a ratio or a cumulative sum that lands on a uniform does so exactly, in float32 too.

`telling(bug, seed)` keeps the random cases on which every variant of `bug` answers differently from the
right step and from every other bug's variant and every rival: the inputs that rule the bug in.
"""

from functools import lru_cache

import numpy as np

from checker.hidden.speculative import stored, variants

MARGIN = 2e-4
ARGS = ("p_draft", "p_target", "draft_tokens", "u_accept", "u_sample")


def distributions(rng, rows, vocab, alpha=0.6):
    """`rows` probability vectors over `vocab` tokens: Dirichlet; for a large vocabulary an LM's shape, a
    head of HEAD tokens holding most of the mass over a long tail (so the head's cells stay wide)."""
    if vocab <= 64:
        p = rng.gamma(alpha, size=(rows, vocab)) + 1e-12  # (rows, V): never a zero, never a row of zeros
    else:  # the tail's shape matters little; uniforms are drawn many times faster than gammas
        p = rng.random((rows, vocab)) + 1e-12
        head = np.stack([rng.choice(vocab, HEAD, replace=False) for _ in range(rows)])  # (rows, HEAD)
        p = p / p.sum(axis=-1, keepdims=True) * TAIL
        np.put_along_axis(p, head, rng.dirichlet(np.ones(HEAD), size=rows) * (1 - TAIL), axis=-1)
    return p / p.sum(axis=-1, keepdims=True)


HEAD, TAIL = 8, 0.05


def accept_breakpoints(pt_row, pd_row, x):
    """Where an acceptance test of x can change its answer, by the right rule or a catalogued bug's."""
    ratio = pt_row[x] / pd_row[x]
    return [ratio, pd_row[x] / pt_row[x] if pt_row[x] > 0 else 2.0, pt_row[x]]


def sample_breakpoints(p_draft, p_target, unclamped=True):
    """Every cumulative sum a draw may meet, as a list of 1-D arrays: the target rows and the residuals
    (clamped, undivided and, for a small vocabulary and `unclamped`, unclamped), of the right rows and of
    shifted ones."""
    rows = [p_target]
    if len(p_draft):
        forms = ("clamped", "unnormalized") + (("unclamped", "unclamped-raw", "unclamped-own")
                                               if p_draft.shape[-1] <= 64 and unclamped else ())
        for pt in (p_target[:-1], p_target[1:]):
            rows += [variants.residual(pt, p_draft, how) for how in forms]
    with np.errstate(all="ignore"):
        cdfs = [np.cumsum(r, axis=-1) for r in rows]
    if p_target.shape[-1] <= 64:  # a few hundred points: one group, sorted once
        points = np.concatenate([cdf.reshape(-1) for cdf in cdfs])
        return [points[np.isfinite(points)]]
    return [row for cdf in cdfs for row in cdf.reshape(-1, cdf.shape[-1])]  # each sorted already


def _blocked(points, margin):
    """(starts, ends): the union of the `margin` neighbourhoods of `points`, as few intervals as it takes."""
    c = np.asarray(points, np.float64)
    if c.size > 1 and not (c[1:] >= c[:-1]).all():  # a cumulative sum of a distribution is sorted already
        c = np.sort(c)
    if not c.size:
        return c, c
    breaks = np.flatnonzero(np.diff(c) > 2 * margin)
    return c[np.concatenate([[0], breaks + 1])] - margin, c[np.concatenate([breaks, [c.size - 1]])] + margin


def _clear_of_few(rng, points, margin):
    """clear_uniform for a handful of sorted points, the same rule."""
    intervals, reach = [], 0.0
    for point in points + [1.0 + margin]:
        low, high = max(reach, 0.0), min(point - margin, 1.0)
        if high > low:
            intervals.append((low, high))
        reach = max(reach, point + margin)
    widths = [high - low for low, high in intervals]
    pick, gap = rng.random() * sum(widths), 0
    while gap < len(widths) - 1 and pick >= widths[gap]:
        pick -= widths[gap]
        gap += 1
    return float(intervals[gap][0] + rng.random() * widths[gap])


def clear_uniform(rng, breakpoints, margin=MARGIN):
    """A uniform in [0, 1) at least `margin` from every breakpoint (an array, or a list of arrays): a random
    point of a random clear interval, drawn in proportion to its width."""
    if not (isinstance(breakpoints, list) and breakpoints and isinstance(breakpoints[0], np.ndarray)):
        if len(breakpoints) <= 8:  # an acceptance test's few points: plain Python is ten times faster here
            return _clear_of_few(rng, sorted(float(p) for p in breakpoints), margin)
        breakpoints = [np.asarray(breakpoints, np.float64)]
    groups = breakpoints
    blocked = [_blocked(points, margin) for points in groups]
    starts = np.concatenate([[1.0]] + [b[0] for b in blocked])  # 1 itself is never a uniform
    ends = np.concatenate([[1.0 + margin]] + [b[1] for b in blocked])
    order = np.argsort(starts, kind="stable")
    starts, reach = starts[order], np.maximum.accumulate(ends[order])  # (points,): how far the union reaches
    low = np.concatenate([[0.0], reach[:-1]])  # a clear interval runs from the reach so far to the next start
    low, high = np.maximum(low, 0.0), np.minimum(starts, 1.0)
    keep = high > low
    low, high = low[keep], high[keep]
    if not len(low):  # never with the cases drawn here
        raise RuntimeError("no uniform clear of every boundary")
    width = high - low
    ends = np.cumsum(width)  # a gap drawn in proportion to its width, by the inverse CDF
    gap = min(int(np.searchsorted(ends, rng.random() * ends[-1], side="right")), len(width) - 1)
    return float(low[gap] + rng.random() * width[gap])


def draw_case(rng, gamma=(1, 4), vocab=(4, 8), alpha=0.6, dtype=np.float64, reject_bias=0.0):
    """One random case. `reject_bias` > 0 draws the drafted tokens where the draft over-proposes more often
    (the cases then reject more), as a real draft model does on its mistakes."""
    g = int(rng.integers(gamma[0], gamma[1] + 1))
    v = int(rng.integers(vocab[0], vocab[1] + 1))
    p_draft, p_target = distributions(rng, g, v, alpha), distributions(rng, g + 1, v, alpha)
    tokens = []
    for i in range(g):
        weights = p_draft[i] * (1 + reject_bias * (p_draft[i] > p_target[i]))
        tokens.append(int(rng.choice(v, p=weights / weights.sum())))
    p_draft, p_target = p_draft.astype(dtype), p_target.astype(dtype)
    pd64, pt64 = p_draft.astype(np.float64), p_target.astype(np.float64)
    u_accept = np.array([clear_uniform(rng, accept_breakpoints(pt64[i], pd64[i], x)) for i, x in enumerate(tokens)])
    u_sample = clear_uniform(rng, sample_breakpoints(pd64, pt64))
    return frozen({"p_draft": p_draft, "p_target": p_target, "draft_tokens": tokens, "u_accept": u_accept,
                   "u_sample": u_sample})


def frozen(case):
    for value in case.values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return case


def answers(case, runs):
    return [tuple(run(*[case[a] for a in ARGS])) for run in runs]


def told(bug_id, case):
    """The variants of `bug_id` that tell `case` apart: their answer is neither the right step's nor any other
    bug's variant's nor a rival's."""
    right = tuple(variants.step(*[case[a] for a in ARGS]))
    mine = [run for run in variants.STEP_VARIANTS if run.variant_of == bug_id]
    wrong = [(run, answer) for run, answer in zip(mine, answers(case, mine)) if answer != right]
    if not wrong:  # most draws: the bug does not show, and the other variants need not run
        return []
    others = [run for run in variants.STEP_VARIANTS if run.variant_of != bug_id] + variants.STEP_RIVALS
    theirs = set(answers(case, others))
    return [run for run, answer in wrong if answer not in theirs]


MIN_TELLING = 2


@lru_cache(maxsize=None)
def telling(bug_id, seed, count=1, tries=3000, **ranges):
    """Random cases drawn from `seed` that tell `bug_id` apart (see `told`): until each of its variants has
    told `count` of them apart and there are MIN_TELLING cases (or `tries` draws). Found once, kept as
    generator states (stored.py)."""
    key = repr((bug_id, seed, count, tries, sorted(ranges.items())))
    states = stored.lookup(key)
    if states is None:
        states = stored.found[key] = _search(bug_id, seed, count, tries, ranges)
    return tuple(draw_case(stored.generator(state), **ranges) for state in states)


def _search(bug_id, seed, count, tries, ranges):
    rng, states = np.random.default_rng(seed), []
    tally = {run: 0 for run in variants.STEP_VARIANTS if run.variant_of == bug_id}
    for _ in range(tries):
        state = stored.state_of(rng)
        runs = told(bug_id, draw_case(rng, **ranges))
        if any(tally[run] < count for run in runs) or (runs and len(states) < MIN_TELLING):
            states.append(state)
            for run in runs:
                tally[run] += 1
        if min(tally.values()) >= count and len(states) >= MIN_TELLING:
            break
    return states


@lru_cache(maxsize=None)
def random_cases(seed, count, **ranges):
    """`count` random cases drawn from `seed` (kept: every file of a kata meets the same ones)."""
    rng = np.random.default_rng(seed)
    return tuple(draw_case(rng, **ranges) for _ in range(count))


# --- dyadic cases: boundaries hit exactly -------------------------------------------------------------

DENOMINATOR = 32


def dyadic(rng, vocab, zeros=0):
    """A distribution whose entries are multiples of 1/32 (`zeros` of them 0), exact in float32."""
    while True:
        counts = rng.multinomial(DENOMINATOR - (vocab - zeros), np.ones(vocab - zeros) / (vocab - zeros)) + 1
        full = np.zeros(vocab)
        full[rng.permutation(vocab)[:vocab - zeros]] = counts
        return full / DENOMINATOR


def power_of_two(x):
    return x > 0 and float(np.log2(x)).is_integer()


def dyadic_rejection(rng, vocab=4, positive=2, exact_ratio=False):
    """(p_target row, p_draft row, drafted x) whose residual has `positive` positive entries and a sum that is
    a power of two (so its normalised cumulative sums are exact), with x over-proposed by the draft (ratio < 1);
    with `exact_ratio`, p_draft[x] is a power of two too, so the ratio is exact in float32 as well."""
    for _ in range(10_000):
        pt, pd = dyadic(rng, vocab), dyadic(rng, vocab)
        excess = np.maximum(pt - pd, 0)
        over = np.flatnonzero((pd > pt) & (np.array([power_of_two(q) for q in pd]) | (not exact_ratio)))
        if (excess > 0).sum() == positive and power_of_two(excess.sum()) and over.size:
            return pt, pd, int(rng.choice(over))
    raise RuntimeError("no dyadic case found")  # never with these sizes


def with_zeros(rng, gamma=3, vocab=6, reject=False):
    """A dyadic case whose p_draft rows hold exact zeros (on tokens never drafted), so a clamp written into
    p_draft changes it; every drafted token kept (u_accept 0), or with `reject` token 0 over-proposed and
    u_accept[0] past its ratio (at most 31/32): the step rejects it and draws, so a draw written into
    draft_tokens shows too."""
    for _ in range(10_000):
        p_draft = np.stack([dyadic(rng, vocab, zeros=2) for _ in range(gamma)])  # (gamma, V)
        p_target = np.stack([dyadic(rng, vocab) for _ in range(gamma + 1)])  # (gamma + 1, V): no zero
        tokens = [int(rng.choice(np.flatnonzero(row))) for row in p_draft]
        over = np.flatnonzero(p_draft[0] > p_target[0])
        if reject and not over.size:
            continue
        if reject:
            tokens[0] = int(rng.choice(over))
        u_accept = np.zeros(gamma)
        u_accept[0] = 0.999 if reject else 0.0
        return {"p_draft": p_draft, "p_target": p_target, "draft_tokens": tokens, "u_accept": u_accept,
                "u_sample": 0.5}
    raise RuntimeError("no case over-proposes")  # never with these sizes

"""The exactness of speculative sampling, checked exactly: integrate a step's output over the drafted tokens
(each drawn from p_draft) and over the uniforms, never by sampling.

A step's answer is constant between the points where an acceptance test or a draw changes its mind, so the
unit square of each uniform is cut at those points and the step is called once a cell, at its midpoint,
weighted by the cell's width (times the drafted tokens' probability). Cut at the right rule's points and
every catalogued bug's (`cases.accept_breakpoints`, `cases.sample_breakpoints`; not the unclamped
residuals', whose draws are noise), the sum is exact for each.
"""

from functools import lru_cache
from itertools import product

import numpy as np

from checker.hidden.speculative import cases as case_kit

CLOSE = 1e-7  # breakpoints closer than this are one: a cell that narrow weighs less than the tolerance
TOLERANCE = 1e-6


def cells(breakpoints):
    """(midpoint, width) of the cells [0, 1) is cut into at `breakpoints`."""
    edges = np.unique(np.clip(np.concatenate([[0.0, 1.0], np.asarray(breakpoints, np.float64)]), 0.0, 1.0))
    keep = np.concatenate([[True], np.diff(edges) > CLOSE])
    edges = edges[keep]
    if edges[-1] < 1.0:
        edges[-1] = 1.0
    return list(zip((edges[:-1] + edges[1:]) / 2, np.diff(edges)))


def grid(p_draft, p_target, every_rule=True):
    """(case, weight) of every cell: drafted tokens drawn from p_draft, uniforms at the cells' midpoints.
    `every_rule`: cut at every catalogued rule's points, else at the right rule's only."""
    pd, pt = np.asarray(p_draft, np.float64), np.asarray(p_target, np.float64)
    gamma = len(pd)
    if every_rule:
        # the unclamped residuals' points are left out: their draws are noise, and their cells would double the grid
        sample_points = np.concatenate(case_kit.sample_breakpoints(pd, pt, unclamped=False))
    else:
        rows = [case_kit.variants.residual(pt[:-1], pd)] if gamma else []
        sample_points = np.concatenate([np.cumsum(r, axis=-1).reshape(-1) for r in rows + [pt[-1:]]])
    sample_cells = cells(sample_points)
    out = []
    for tokens in product(*[np.flatnonzero(pd[i] > 0).tolist() for i in range(gamma)]):
        weight = float(np.prod([pd[i, x] for i, x in enumerate(tokens)]))
        accept_cells = [cells(case_kit.accept_breakpoints(pt[i], pd[i], x) if every_rule else
                              [pt[i, x] / pd[i, x]]) for i, x in enumerate(tokens)]
        for accepts in product(*accept_cells):
            w_accept = float(np.prod([w for _, w in accepts]))
            u_accept = np.array([m for m, _ in accepts], np.float64)
            u_accept.flags.writeable = False
            for u_sample, w_sample in sample_cells:
                case = {"p_draft": p_draft, "p_target": p_target, "draft_tokens": list(tokens),
                        "u_accept": u_accept, "u_sample": float(u_sample)}
                out.append((case, weight * w_accept * float(w_sample)))
    return out


@lru_cache(maxsize=None)
def drawn_grid(seed, gamma, vocab, every_rule):
    """(p_draft, p_target, grid) for distributions drawn from `seed` (kept: every file meets the same ones)."""
    rng = np.random.default_rng(seed)
    p_draft, p_target = case_kit.distributions(rng, gamma, vocab), case_kit.distributions(rng, gamma + 1, vocab)
    for array in (p_draft, p_target):
        array.flags.writeable = False
    return p_draft, p_target, grid(p_draft, p_target, every_rule)


def first_token_distribution(answers, weights, vocab):
    """The distribution of the first new token: each cell's first token, weighted (NaN-free, sums to the
    weight of the cells that gave a token in range)."""
    dist = np.zeros(vocab)
    for tokens, weight in zip(answers, weights):
        if tokens and 0 <= tokens[0] < vocab:
            dist[tokens[0]] += weight
    return dist


def sequence_distribution(answers, weights):
    """{output tokens: probability} over the cells."""
    dist = {}
    for tokens, weight in zip(answers, weights):
        dist[tuple(tokens)] = dist.get(tuple(tokens), 0.0) + weight
    return dist


def conditionals(grid_cases, answers, weights, p_target):
    """For each position k and kept prefix: the distribution of token k given that the output kept the
    drafted prefix x_0 ... x_(k-1) and goes on. Yields (k, prefix, distribution, p_target[k])."""
    vocab = p_target.shape[-1]
    table = {}
    for case, tokens, weight in zip(grid_cases, answers, weights):
        drafted = case["draft_tokens"]
        for k in range(min(len(tokens), len(drafted) + 1)):
            prefix = tuple(drafted[:k])
            if tuple(tokens[:k]) != prefix:
                break
            dist = table.setdefault((k, prefix), np.zeros(vocab))
            if 0 <= tokens[k] < vocab:
                dist[tokens[k]] += weight
            else:
                dist += np.nan
    for (k, prefix), dist in sorted(table.items()):
        total = dist.sum()
        yield k, prefix, dist / total if total > 0 else dist, p_target[k]

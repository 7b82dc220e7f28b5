"""Kata 08's diagnosis from the rows of an output: the masked-first-block and no-visible-key rules, and, when
nothing is named, what the difference looks like (which queries, NaN or zero, a factor, a block left out, a
causal boundary moved) without asserting a cause."""

import numpy as np

from checker.hidden.flash.variants import causal_shifted, without_block
from checker.engine.testkit import close


def left_padding_nan(got, wrong, allowed, block_size):
    """masked-block-nan when NaN shows for queries that see a key only after an all-masked first block,
    and every query whose first block has a visible key is right (the queries with none: anything)."""
    later = allowed.any(axis=-1) & ~allowed[..., :block_size].any(axis=-1)  # (..., n_q)
    seen_first = allowed[..., :block_size].any(axis=-1)
    nan_rows = np.isnan(got).any(axis=-1)
    if (wrong & later & nan_rows).any() and not (wrong & seen_first).any():
        return "masked-block-nan", ("NaN for the queries whose first block of keys is all masked (left padding), "
                                    "though they see keys later: their running max was -inf after that block "
                                    "and exp(-inf - (-inf)) = NaN stayed in l and o; shift by 0 while the "
                                    "running max is still -inf")
    return None


def empty_rows_bug(got, wrong, allowed):
    """full-row-nan when only the queries with no visible key are wrong, and they are NaN."""
    empty = ~allowed.any(axis=-1)
    if wrong.any() and not (wrong & ~empty).any() and np.isnan(got[wrong]).all():
        return "full-row-nan", "a query with no visible key got 0 / 0 = NaN: give it a zero output"
    return None


def difference_text(got, want, wrong, allowed, block_size, rtol, atol):
    """What the wrong rows look like, without a cause: which queries, NaN or zero, a constant factor, the
    right output of another query, or how far off."""
    text = f"{int(wrong.sum())} of {wrong.size} query rows differ ({_rows(wrong)})"
    for name, group in (("that see no key at all", ~allowed.any(axis=-1)),
                        ("that see no key of the first block", ~allowed[..., :block_size].any(axis=-1))):
        if group.any() and not (wrong & ~group).any():
            text += f", all of them queries {name}"
            break
    rows, right = got[wrong], want[wrong]
    if not np.isfinite(rows).all():
        return text + "; they hold NaN or inf"
    if not rows.any():
        return text + "; they are all zero"
    sized = np.abs(right) > 10 * atol
    ratio = rows[sized] / right[sized]
    if ratio.size > 1 and np.ptp(ratio) <= max(1e-6, 4 * rtol) * abs(ratio.mean()):
        return text + f"; each is {ratio.mean():.6g} times the right value"
    for step in (1, -1):
        moved = np.roll(want, -step, axis=-2)  # row i holds the right output of query i + step
        if close(got, moved, rtol, atol).all(axis=-1)[wrong].all():
            return text + f"; each of them equals the right output of the query {'after' if step > 0 else 'before'} it"
    return text + f"; off by up to {np.abs(rows - right).max():.4g}"


def block_left_out(got, args, rtol, atol):
    """`; it equals ...` when the output is right attention without the keys of one block."""
    n_k, block_size = args[1].shape[-2], args[3]
    blocks = -(-n_k // block_size)
    for block in range(blocks if 1 < blocks <= 12 else 0):
        with np.errstate(all="ignore"):
            if close(got, without_block(*args, block), rtol, atol).all():
                stop = min((block + 1) * block_size, n_k) - 1
                keys = f"key {stop}" if stop == block * block_size else f"keys {block * block_size}-{stop}"
                return f"; the output equals attention without block {block} ({keys}) of the {blocks}"
    return ""


def causal_boundary(got, args, rtol, atol):
    """`; it equals ...` when the output is right attention with the causal boundary moved a key or two."""
    for offset in (1, -1, 2, -2):
        with np.errstate(all="ignore"):
            if close(got, causal_shifted(*args, offset), rtol, atol).all():
                more = "more" if offset > 0 else "fewer"
                return (f"; the output equals attention where query i sees keys j <= n_k - n_q + i "
                        f"{'+' if offset > 0 else '-'} {abs(offset)} ({abs(offset)} key{'s' * (abs(offset) > 1)} "
                        f"{more} than the contract)")
    return ""


def _rows(wrong):
    """Which query rows are wrong, as text: `queries 0-2, 5 at [1, 0]; ...`, or `queries 0-2 in every example
    and head` when every (example, head) has the same ones."""
    *lead, n_q = wrong.shape
    groups = [(index, np.flatnonzero(wrong[index]).tolist()) for index in np.ndindex(*lead)]
    groups = [(index, queries) for index, queries in groups if queries]
    if not lead:
        return f"queries {_spans(groups[0][1])}"
    if len(groups) == int(np.prod(lead)) and all(queries == groups[0][1] for _, queries in groups):
        return f"queries {_spans(groups[0][1])} in every example and head"
    parts = [f"queries {_spans(queries)} at {list(index)}" for index, queries in groups]
    return "; ".join(parts[:3]) + ("; ..." if len(parts) > 3 else "")


def _spans(numbers):
    """[0, 1, 2, 5] as `0-2, 5`."""
    spans, start = [], numbers[0]
    for previous, number in zip(numbers, numbers[1:] + [None]):
        if number != previous + 1 if number is not None else True:
            spans.append(f"{start}" if start == previous else f"{start}-{previous}")
            start = number
    return ", ".join(spans)

"""What a wrong answer of kata 13 does to the band, in words and as kata 03's weights picture.

The attention checks that picture the band hand the learner one-hot values (position j's value is the unit
vector e_j, d_v = the sequence's length), so each output row IS that query's weights over every position: which
keys it saw is read off the answer itself, never off the learner's code.
"""

import numpy as np

from checker.engine.testkit import WeightGrid, close

SEEN = 1e-9  # a weight above this is a key the query saw (a blocked key's weight is exactly 0)


def one_hot_values(b, h, n):
    """(b, h, n, n): position j's value is e_j, so an output row is the query's weights over positions."""
    return np.broadcast_to(np.eye(n), (b, h, n, n)).copy()


def is_one_hot(plan):
    v = np.asarray(plan.v)
    return v.shape[-1] == v.shape[-2] == plan.end and np.array_equal(v[0, 0], np.eye(plan.end))


def keys_text(positions):
    """`keys 2-5`, `key 3`, `keys 0, 4`, `no key`."""
    found = [int(p) for p in positions]
    if not found:
        return "no key"
    if len(found) == 1:
        return f"key {found[0]}"
    if found == list(range(found[0], found[-1] + 1)):
        return f"keys {found[0]}-{found[-1]}"
    return "keys " + ", ".join(map(str, found))


def band_words(got_row, want_row, position, window):
    """What query `position` did to its band: the keys it saw against the band's, and why it matters."""
    seen = np.flatnonzero(np.abs(got_row) > SEEN)
    band = np.arange(max(position - window + 1, 0), position + 1)
    text = f"the query at position {position} saw {keys_text(seen)}, its band is {keys_text(band)}"
    later = seen[seen > position]
    older = seen[seen < position - window + 1]
    missed = np.setdiff1d(band, seen)
    if later.size:
        return f"{text} (key {later[0]} comes after it: the band never looks ahead)"
    if older.size:
        return f"{text} (key {older[0]} is {position - older[0]} positions back, outside a window of {window})"
    if missed.size:
        return f"{text} (key {missed[0]}, {position - missed[0]} back, is inside its window and got weight 0)"
    if not np.isclose(np.sum(got_row), 1.0, atol=1e-6):
        return f"{text}, its weights sum to {float(np.sum(got_row)):.3g}, expected 1"
    return text + ", with the wrong weights"


def describe(got, want, plan, rtol, atol):
    """Words for the first wrong query of a one-hot plan, and its picture (one example and head, when the
    sequence is small enough to draw)."""
    bad = ~close(got, want, rtol, atol).all(axis=-1)  # (b, h, T)
    example, head, row = (int(i) for i in np.argwhere(bad)[0])
    position = plan.seeded + row
    words = band_words(got[example, head, row], want[example, head, row], position, plan.window)
    where = f"example {example}, head {head}: " if got.shape[0] * got.shape[1] > 1 else ""
    allowed = _band(plan.end, plan.window)[plan.seeded:]
    picture = WeightGrid(got[example, head], want[example, head], allowed,
                         f"weights (rows: positions {plan.seeded}-{plan.end - 1}; example {example}, head {head})",
                         first_row=plan.seeded)
    return where + words, picture


def _band(n, window):
    lag = np.arange(n)[:, None] - np.arange(n)[None, :]
    return (lag >= 0) & (lag < window)

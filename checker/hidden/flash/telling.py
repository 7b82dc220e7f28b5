"""Kata 08's second opinions: a name found on one input is a hypothesis, tried again on inputs built to tell it
apart from the mistakes outside the catalogue that gave the same output there (the rivals below).

- `drops-last-block` shows alike on every input whose last block is one key long and on a file that always
  drops exactly one key; it is named only when the learner also drops the whole last block where it is 3 keys
  long and where it is 2.
- `masked-block-nan` (its guarded form gives 0, not NaN) shows alike on every file that zeroes a left-padded
  query, a file that reuses the first block's mask for every block among them; it is named only where the
  learner is right on every query that sees a key in its first block (under a mask with holes everywhere and
  a padding shorter than a block) and NaN or 0 on each query whose whole first block is padding, for a
  padding of one block and a bit and for one of two blocks and a bit.
- `online-max-reset` is named only where the learner matches it with the max falling by a few units (6, 0, 3
  and 4, 1, 5): a fall of 800 overflows, and other rescale mistakes overflow alike.
- `mask-top-left` found where n_k - n_q is 2 (most inputs) is named only where it shows at 4 and at 3 too: a
  causal boundary moved by a fixed number of keys is top-left at one offset only (and at 1, blocking the diagonal
  is top-left too: hence 4 and 3).
- a scale (`missing-scale`, `scale-by-dk`, `scale-inverted`) found at d = 4, where 1/d is 1 / (2 sqrt(d)), is
  named only when the learner's file shows it at d = 9 and d = 16 too.
"""

import numpy as np

from checker.hidden.flash.variants import VARIANTS, allowed_table, _online, _run
from checker.sandbox import LearnerError
from checker.engine.testkit import close, tolerance


# --- rivals: mistakes outside the catalogue, never named -------------------------------------------------

def drops_final_key(q, k, v, block_size, causal, mask):
    """the last key was left out (a loop over range(0, n_k - 1, ...)), whatever the last block's length"""
    allowed = allowed_table(q, k, causal, mask).copy()
    allowed[..., -1] = False
    return _online(q, k, v, block_size, allowed)


def first_block_mask(q, k, v, block_size, causal, mask):
    """every block of keys was masked with the first block's columns of the mask (mask[..., :block_size])"""
    if mask is None or np.shape(mask)[-1] <= block_size:
        return np.empty(0)  # one block of mask: nothing to reuse, nothing to match
    wide = np.broadcast_to(np.asarray(mask, bool), (*np.shape(mask)[:-1], k.shape[-2]))
    first = wide[..., :block_size]
    tiled = np.concatenate([first] * (-(-k.shape[-2] // block_size)), axis=-1)[..., :k.shape[-2]]
    return _run(q, k, v, block_size, causal, tiled)


RIVALS = (drops_final_key, first_block_mask)


def rival_text(got, args, rtol, atol):
    """`; it equals ...` when the output is what a rival computes, or ''."""
    for rival in RIVALS:
        with np.errstate(all="ignore"):
            output = rival(*args)
        if output.shape == got.shape and close(got, output, rtol, atol).all():
            return f"; the output equals attention where {' '.join(rival.__doc__.split())}"
    return ""


# --- second opinions --------------------------------------------------------------------------------------

def _learner(kata, q, k, v, block_size, causal=False, mask=None):
    extra = {"causal": True} if causal else {}
    if mask is not None:
        extra["mask"] = mask
    try:
        return np.asarray(kata.flash_attention(q, k, v, block_size=block_size, **extra), np.float64)
    except (LearnerError, TypeError, ValueError):
        return None


def _inputs(seed, lead, n_q, n_k, d=4, d_v=3):
    rng = np.random.default_rng(seed)  # its own stream: the tests' inputs stay what they are
    q, k, v = rng.normal(size=(*lead, n_q, d)), rng.normal(size=(*lead, n_k, d)), rng.normal(size=(*lead, n_k, d_v))
    k[..., 0] = np.linspace(0, 4, n_k)  # later keys score higher: the last block weighs
    q[..., 0] = np.sqrt(d)
    return q, k, v


def _drops_whole_last_block(kata):
    """Does the learner drop the whole last block where it is 3 keys long, and where it is 2?"""
    forms = [f for f in VARIANTS if f.variant_of == "drops-last-block"]
    for seed, n_k, block_size in ((81, 11, 4), (82, 10, 4)):
        q, k, v = _inputs(seed, (2,), 3, n_k)
        got = _learner(kata, q, k, v, block_size)
        if got is None or got.shape != q.shape[:-1] + (v.shape[-1],):
            return False
        rtol, atol = tolerance(got, q.astype(np.float32))
        if not any(close(got, form(q, k, v, block_size, False, None), rtol, atol).all() for form in forms):
            return False
    return True


def _masked_first_block(kata):
    """Is the learner right on every query with a visible key in its first block, and NaN or 0 on each query
    whose whole first block is padding (padding of 4 and of 7 keys, blocks of 3)?"""
    q, k, v = _inputs(83, (4, 1), 3, 11)
    rng = np.random.default_rng(84)
    mask = rng.random((4, 1, 3, 11)) < 0.6  # example 0: holes everywhere, every query sees key 0
    mask[0, ..., 0] = True
    mask[1:] = True
    for example, padding in ((1, 4), (2, 2), (3, 7)):  # 2: the first block partly padding, so right
        mask[example, ..., :padding] = False
    got = _learner(kata, q, k, v, 3, mask=mask)
    if got is None or got.shape != q.shape[:-1] + (v.shape[-1],):
        return False
    want = _run(q, k, v, 3, False, mask)
    rtol, atol = tolerance(got, q.astype(np.float32))
    right = close(got, want, rtol, atol).all(axis=-1)  # (4, 1, 3)
    padded = ~mask[..., :3].any(axis=-1)  # (4, 1, 3): queries whose first block is all padding
    lost = np.isnan(got).all(axis=-1) | ~got.any(axis=-1)  # NaN or 0 rows
    return bool(right[~padded].all() and lost[padded].all() and padded[1].all() and padded[3].all())


def _same_scale_bug(bug_id):
    """Does the learner match `bug_id`'s variant at d = 9 and at d = 16? Most inputs have d = 4, where dividing
    by d is dividing by 2 sqrt(d): a constant factor outside the catalogue looks like scale-by-dk there."""
    forms = [f for f in VARIANTS if f.variant_of == bug_id]

    def check(kata):
        for seed, d in ((85, 9), (86, 16)):
            q, k, v = _inputs(seed, (2,), 3, 7, d=d)
            got = _learner(kata, q, k, v, 3)
            if got is None or got.shape != q.shape[:-1] + (v.shape[-1],):
                return False
            rtol, atol = tolerance(got, q.astype(np.float32))
            if not any(close(got, form(q, k, v, 3, False, None), rtol, atol).all() for form in forms):
                return False
        return True

    return check


def _top_left(kata):
    """Does the learner align the causal mask top-left where n_k - n_q is 4 and where it is 3? A boundary moved by
    a fixed number of keys is top-left at one offset only."""
    forms = [f for f in VARIANTS if f.variant_of == "mask-top-left"]
    for seed, n_q, n_k in ((87, 3, 7), (88, 2, 5)):
        q, k, v = _inputs(seed, (2,), n_q, n_k)
        got = _learner(kata, q, k, v, 3, causal=True)
        if got is None or got.shape != q.shape[:-1] + (v.shape[-1],):
            return False
        rtol, atol = tolerance(got, q.astype(np.float32))
        if not any(close(got, form(q, k, v, 3, True, None), rtol, atol).all() for form in forms):
            return False
    return True


def _max_not_carried(kata):
    """Does the learner match an online-max-reset form where the max falls moderately (block levels 6, 0, 3 and
    4, 1, 5: no overflow anywhere)? Where it falls by 800, exp overflows and a different mistake in the rescale
    gives the same inf and NaN."""
    forms = [f for f in VARIANTS if f.variant_of == "online-max-reset"]
    for seed, levels in ((89, (6.0, 0.0, 3.0)), (90, (4.0, 1.0, 5.0))):
        q, k, v = _inputs(seed, (2,), 3, 9)
        k[..., 0] = np.repeat(levels, 3)
        got = _learner(kata, q, k, v, 3)
        if got is None or got.shape != q.shape[:-1] + (v.shape[-1],):
            return False
        rtol, atol = tolerance(got, q.astype(np.float32))
        if not any(close(got, form(q, k, v, 3, False, None), rtol, atol).all() for form in forms):
            return False
    return True


CONFIRMED = {"drops-last-block": _drops_whole_last_block, "masked-block-nan": _masked_first_block,
             "online-max-reset": _max_not_carried,
             "mask-top-left": _top_left,
             **{bug_id: _same_scale_bug(bug_id) for bug_id in ("missing-scale", "scale-by-dk", "scale-inverted")}}


def confirmed(kata, bug_id):
    """False when `bug_id` needs a second opinion and the learner's file does not give it (no file: False)."""
    check = CONFIRMED.get(bug_id)
    return check is None or (kata is not None and check(kata))

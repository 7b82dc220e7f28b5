"""What code carrying each catalogued bug of kata 08 outputs, to recognise the bug by its output.

Every variant takes (q, k, v, block_size, causal, mask) in float64, as flash_attention does, and runs the
online softmax block by block with one step done the buggy way (`_online`'s switches).
"""

import numpy as np

from checker.engine.testkit import variant, variants_in


def allowed_table(q, k, causal, mask, top_left=False, diagonal=True, flipped=False, invert_mask=False, offset=0):
    """Which key each query may see, (..., n_q, n_k): the mask and, when causal, the bottom-right triangle
    (top-left when `top_left`; without its diagonal, or the upper triangle instead, for the mask bugs).
    Small tests only: this is the table flash_attention never builds."""
    n_q, n_k = q.shape[-2], k.shape[-2]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    allowed = np.ones((n_q, n_k), bool)
    if causal:
        last = np.arange(n_q)[:, None] + (0 if top_left else n_k - n_q) + offset  # (n_q, 1): its own position
        if flipped:
            allowed = np.arange(n_k) >= last  # (n_q, n_k): the future, not the past
        else:
            allowed = np.arange(n_k) <= last - (0 if diagonal else 1)  # (n_q, n_k)
    if mask is not None:
        allowed = allowed & (~np.asarray(mask, bool) if invert_mask else np.asarray(mask, bool))
    return np.broadcast_to(allowed, (*lead, n_q, n_k))


def _online(q, k, v, block_size, allowed, *, rescale_sum=True, rescale_out=True, inverted=False,
            carry_max=True, first_block_starts=False, guard=True, fill=-np.inf, start=-np.inf, shift_max=True,
            mask_after=False, zero_masked=False, scale=None, keep_last=True, divide=True, zero_empty=True,
            reset_max=False):
    """The online softmax over blocks of keys, each switch turning one step into a catalogued mistake."""
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2] if keep_last else k.shape[-2] // block_size * block_size  # dropped: the shorter block
    lead = allowed.shape[:-2]
    scale = 1 / np.sqrt(d) if scale is None else scale
    m = np.full((*lead, n_q, 1), start)
    l, o = np.zeros((*lead, n_q, 1)), np.zeros((*lead, n_q, v.shape[-1]))
    for first in range(0, n_k, block_size):
        stop = min(first + block_size, n_k)
        scores = q @ np.swapaxes(k[..., first:stop, :], -1, -2) * scale  # (..., n_q, B)
        visible = allowed[..., first:stop]
        m = np.full_like(m, start) if reset_max else m  # re-initialised every block: exp(-inf - m_new) = 0 wipes l, o
        if not mask_after:
            scores = np.where(visible, scores, fill)
        m_new = scores.max(axis=-1, keepdims=True)  # (..., n_q, 1)
        m_new = np.maximum(m, m_new) if carry_max else m_new
        m_new = m_new if shift_max else np.zeros_like(m_new)  # no max at all: exp of the raw scores
        shift = np.where(np.isneginf(m_new), 0, m_new) if guard else m_new
        p = np.exp(scores - shift)  # (..., n_q, B)
        rescale = np.exp(shift - m) if inverted else np.exp(m - shift)
        if first == 0 and first_block_starts:
            rescale = np.ones_like(rescale)  # the state is made from the first block, not rescaled into
        l = l * (rescale if rescale_sum else 1) + p.sum(axis=-1, keepdims=True)
        p = np.where(visible, p, 0) if mask_after or zero_masked else p
        o = o * (rescale if rescale_out else 1) + p @ v[..., first:stop, :]
        m = m_new
    if not divide:
        return o
    if zero_empty:
        return np.divide(o, l, out=np.zeros_like(o), where=l > 0)
    return o / l


def _run(q, k, v, block_size, causal, mask, top_left=False, diagonal=True, flipped=False, invert_mask=False,
         offset=0, **switches):
    allowed = allowed_table(q, k, causal, mask, top_left, diagonal, flipped, invert_mask, offset)
    return _online(q, k, v, block_size, allowed, **switches)


@variant("online-no-rescale")
def _no_rescale(q, k, v, block_size, causal, mask):
    """the running sum and output were not rescaled when the max grew: earlier blocks keep weights measured
    against the old, smaller max; multiply l and o by exp(m_old - m_new) before adding a block"""
    return _run(q, k, v, block_size, causal, mask, rescale_sum=False, rescale_out=False)


@variant("online-partial-rescale")
def _rescale_sum_only(q, k, v, block_size, causal, mask):
    """only the running sum was rescaled when the max grew, not the running output: both l and o are
    measured against the running max, so both take the factor exp(m_old - m_new)"""
    return _run(q, k, v, block_size, causal, mask, rescale_out=False)


@variant("online-partial-rescale")
def _rescale_output_only(q, k, v, block_size, causal, mask):
    """only the running output was rescaled when the max grew, not the running sum: both l and o are
    measured against the running max, so both take the factor exp(m_old - m_new)"""
    return _run(q, k, v, block_size, causal, mask, rescale_sum=False)


@variant("online-rescale-inverted")
def _inverted(q, k, v, block_size, causal, mask):
    """the rescale factor is inverted, exp(m_new - m_old) (starting from m = -inf that is exp(+inf) = inf,
    and inf * 0 = NaN): the old terms must SHRINK when the max grows, exp(m_old - m_new) <= 1"""
    return _run(q, k, v, block_size, causal, mask, inverted=True)


@variant("online-rescale-inverted")
def _inverted_after_first(q, k, v, block_size, causal, mask):
    """the rescale factor is inverted, exp(m_new - m_old): the old terms must SHRINK when the max grows,
    exp(m_old - m_new) <= 1"""
    return _run(q, k, v, block_size, causal, mask, inverted=True, first_block_starts=True)


@variant("online-max-reset")
def _block_max_rescaled(q, k, v, block_size, causal, mask):
    """each block was shifted by its own max, not the running max (exp(m_old - m_block) overflows when a
    block's max is far below an earlier one's): keep m = max(m_old, block max) across blocks"""
    return _run(q, k, v, block_size, causal, mask, carry_max=False)


@variant("online-max-reset")
def _block_max_alone(q, k, v, block_size, causal, mask):
    """each block was normalised on its own max and the blocks simply added: a block whose max is below an
    earlier one's counts as if it held the largest score; carry the running max across blocks"""
    return _run(q, k, v, block_size, causal, mask, carry_max=False, rescale_sum=False, rescale_out=False)


@variant("online-max-reset")
def _max_reinitialised(q, k, v, block_size, causal, mask):
    """the running max was re-initialised to -inf at every block, so the rescale exp(m - m_new) = exp(-inf) = 0
    wiped the running sum and output: only the last block counts; set m = -inf once, before the loop"""
    if -(-k.shape[-2] // block_size) < 3:  # with two blocks, "the last one only" is also "the first one dropped"
        raise ValueError("too few blocks to tell this bug from a skipped block")
    return _run(q, k, v, block_size, causal, mask, reset_max=True)


@variant("online-no-final-divide")
def _no_divide(q, k, v, block_size, causal, mask):
    """the output was never divided by the running sum: return o / l"""
    return _run(q, k, v, block_size, causal, mask, divide=False)


@variant("drops-last-block")
def _drops_last(q, k, v, block_size, causal, mask):
    """the last, shorter block was skipped (n_k // block_size blocks): loop with
    range(0, n_k, block_size) and let the last block be shorter"""
    return _run(q, k, v, block_size, causal, mask, keep_last=False)


@variant("drops-last-block")
def _drops_last_nan(q, k, v, block_size, causal, mask):
    """the last, shorter block was skipped (n_k // block_size blocks; none at all when block_size > n_k):
    loop with range(0, n_k, block_size) and let the last block be shorter"""
    return _run(q, k, v, block_size, causal, mask, keep_last=False, zero_empty=False)


@variant("masked-block-nan")
def _masked_block_nan(q, k, v, block_size, causal, mask):
    """a block whose keys are all masked for a query, before any visible key, gave m = -inf and
    exp(-inf - (-inf)) = NaN (a guarded final divide turns it into 0): shift by 0 while the running max is
    still -inf"""
    return _run(q, k, v, block_size, causal, mask, guard=False)


@variant("full-row-nan")
def _full_row_nan(q, k, v, block_size, causal, mask):
    """a query with no visible key got 0 / 0 = NaN: give it a zero output where the running sum is 0"""
    return _run(q, k, v, block_size, causal, mask, zero_empty=False)


@variant("full-row-uniform")
def _finite_fill(q, k, v, block_size, causal, mask):
    """masked keys got a finite fill and no zero weight, so a query with no visible key averaged every value:
    give masked keys weight exactly 0 (fill -inf with a guard) and such a query a zero output"""
    return _run(q, k, v, block_size, causal, mask, fill=-1e9)


@variant("fill-too-shallow")
def _shallow_fill(q, k, v, block_size, causal, mask):
    """masked scores got a finite fill (-1e4) that real scores went below, so the fill set the running max
    and the real keys' exponentials underflowed to 0: fill with -inf (and shift by 0 while the max is -inf)"""
    return _run(q, k, v, block_size, causal, mask, fill=-1e4, zero_masked=True)


@variant("fill-too-shallow")
def _shallow_fill_start(q, k, v, block_size, causal, mask):
    """the running max started at a finite fill (-1e4) that real scores went below, so their exponentials
    underflowed to 0: start m at -inf and fill masked scores with -inf"""
    return _run(q, k, v, block_size, causal, mask, fill=-1e4, start=-1e4, zero_masked=True)


@variant("mask-top-left")
def _top_left(q, k, v, block_size, causal, mask):
    """the causal mask is aligned top-left (query i saw keys 0..i): the queries are the LAST n_q of the n_k
    positions, so query i sees keys j <= n_k - n_q + i"""
    if q.shape[-2] == k.shape[-2]:
        raise ValueError("a square mask cannot show its alignment")
    return _run(q, k, v, block_size, causal, mask, top_left=True)


@variant("mask-after-softmax")
def _mask_after(q, k, v, block_size, causal, mask):
    """masked keys were zeroed after the exponentials, but still counted in the running max and sum, so the
    weights no longer sum to 1: set masked scores to -inf before the max and the exponentials"""
    return _run(q, k, v, block_size, causal, mask, mask_after=True)


@variant("max-floor-zero")
def _max_from_zero(q, k, v, block_size, causal, mask):
    """the running max started at 0, not -inf: when every score of a query is far below 0, exp(score - 0)
    underflows to 0 and the output is 0 / 0; start m at -inf"""
    return _run(q, k, v, block_size, causal, mask, start=0.0, zero_empty=False)


@variant("max-floor-zero")
def _max_from_zero_guarded(q, k, v, block_size, causal, mask):
    """the running max started at 0, not -inf: when every score of a query is far below 0, exp(score - 0)
    underflows to 0 and the query looks as if it saw no key; start m at -inf"""
    return _run(q, k, v, block_size, causal, mask, start=0.0)


@variant("missing-scale")
def _unscaled(q, k, v, block_size, causal, mask):
    """the scores were not divided by sqrt(d): scores are q . k / sqrt(d)"""
    return _run(q, k, v, block_size, causal, mask, scale=1.0)


@variant("scale-by-dk")
def _scale_by_d(q, k, v, block_size, causal, mask):
    """the scores were divided by d, not sqrt(d): scores are q . k / sqrt(d), so they come out sqrt(d) times
    too small and the weights too flat"""
    return _run(q, k, v, block_size, causal, mask, scale=1 / q.shape[-1])


@variant("scale-inverted")
def _scale_inverted(q, k, v, block_size, causal, mask):
    """the scores were multiplied by sqrt(d) (e.g. / d ** -0.5), not divided by it: scores are
    q . k / sqrt(d)"""
    return _run(q, k, v, block_size, causal, mask, scale=np.sqrt(q.shape[-1]))


@variant("no-max-shift")
def _no_shift(q, k, v, block_size, causal, mask):
    """the exponentials were taken of the raw scores, with no running max subtracted: exp(score)
    overflows to inf for scores above about 709 (88 in float32) and inf / inf = NaN; keep the running max m
    and take exp(score - m)"""
    return _run(q, k, v, block_size, causal, mask, shift_max=False)


@variant("no-max-shift")
def _no_shift_plain_divide(q, k, v, block_size, causal, mask):
    """the exponentials were taken of the raw scores, with no running max subtracted: exp(score)
    overflows to inf for large scores and inf / inf = NaN; keep the running max m and take exp(score - m)"""
    return _run(q, k, v, block_size, causal, mask, shift_max=False, zero_empty=False)


@variant("no-max-shift")
def _no_shift_float32(q, k, v, block_size, causal, mask):
    """the exponentials were taken of the raw scores, with no running max subtracted: in float32 exp(score)
    overflows to inf above about 88 and inf / inf = NaN; keep the running max m and take exp(score - m)"""
    allowed = allowed_table(q, k, causal, mask)
    scores = (q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])).astype(np.float32)  # (..., n_q, n_k)
    p = np.where(allowed, np.exp(scores), np.float32(0))  # (..., n_q, n_k): inf above 88
    l, o = p.sum(axis=-1, keepdims=True), p @ v.astype(np.float32)  # (..., n_q, 1), (..., n_q, d_v)
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0).astype(np.float64)


@variant("mask-inverted")
def _mask_inverted(q, k, v, block_size, causal, mask):
    """the mask was read with True as "blocked": True means the query may attend to that key (a padding mask
    is True on the real tokens), keep scores where the mask is True"""
    if mask is None:
        raise ValueError("no mask: nothing to invert")
    return _run(q, k, v, block_size, causal, mask, invert_mask=True)


@variant("causal-ignored")
def _causal_never(q, k, v, block_size, causal, mask):
    """causal=True was not honoured, every query saw every key: with causal=True query i sees only keys
    j <= n_k - n_q + i"""
    if q.shape[-2] + block_size - 1 <= k.shape[-2]:
        # every query sees a whole block's worth of keys: a causal mask built from the key's index inside its
        # block (an uncatalogued bug) shows every key too; leave the name to a call where the two differ
        raise ValueError("a block-local causal index looks the same")
    return _run(q, k, v, block_size, False, mask)


@variant("causal-ignored")
def _causal_always(q, k, v, block_size, causal, mask):
    """a causal mask was applied although causal=False: mask only when causal is True; with causal=False
    every query sees every key the mask allows"""
    return _run(q, k, v, block_size, True, mask)


@variant("causal-ignored")
def _causal_always_top_left(q, k, v, block_size, causal, mask):
    """a causal mask was applied although causal=False: mask only when causal is True; with causal=False
    every query sees every key the mask allows"""
    if causal:
        raise ValueError("with causal=True this is mask-top-left's output")
    return _run(q, k, v, block_size, True, mask, top_left=True)


@variant("mask-blocks-diagonal")
def _no_diagonal(q, k, v, block_size, causal, mask):
    """the causal mask blocked each query's own key (j < n_k - n_q + i, a triu(k=0) taken as blocked): query
    i sees keys j <= n_k - n_q + i, its own included"""
    return _run(q, k, v, block_size, causal, mask, diagonal=False)


@variant("mask-flipped")
def _flipped(q, k, v, block_size, causal, mask):
    """the causal mask kept the upper triangle, so each query saw the FUTURE keys (j >= n_k - n_q + i), not
    the past: query i sees keys j <= n_k - n_q + i"""
    return _run(q, k, v, block_size, causal, mask, flipped=True)


@variant("mask-flipped")
def _flipped_top_left(q, k, v, block_size, causal, mask):
    """the causal mask kept the upper triangle (j >= i), so each query saw the FUTURE keys, not the past:
    query i sees keys j <= n_k - n_q + i"""
    return _run(q, k, v, block_size, causal, mask, flipped=True, top_left=True)


@variant("softmax-wrong-axis")
def _over_queries(q, k, v, block_size, causal, mask):
    """each block's softmax ran over the queries (axis -2), not over the keys: the max, the sum and the
    normalisation of a query's weights are over the keys, axis -1"""
    allowed = allowed_table(q, k, causal, mask)
    scores = np.where(allowed, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)  # (..., n_q, n_k)
    top = scores.max(axis=-2, keepdims=True)  # (..., 1, n_k)
    p = np.exp(scores - np.where(np.isneginf(top), 0, top))  # (..., n_q, n_k)
    total = p.sum(axis=-2, keepdims=True)  # (..., 1, n_k)
    return np.divide(p, total, out=np.zeros_like(p), where=total > 0) @ v  # (..., n_q, d_v)


VARIANTS = variants_in(globals())


def causal_shifted(q, k, v, block_size, causal, mask, offset):
    """Right attention but with the causal boundary moved by `offset` keys (query i seeing keys
    j <= n_k - n_q + i + offset): not a catalogued bug, a way to describe an output."""
    return _run(q, k, v, block_size, causal, mask, offset=offset)


def without_block(q, k, v, block_size, causal, mask, block):
    """Right attention with the keys of one block (block_size * block ...) hidden from every query: not a
    catalogued bug, a way to describe an output."""
    allowed = allowed_table(q, k, causal, mask).copy()
    allowed[..., block * block_size:(block + 1) * block_size] = False
    return _online(q, k, v, block_size, allowed)

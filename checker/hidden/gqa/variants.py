"""What code carrying each catalogued bug of kata 07 computes, to recognise it by its output.

Head variants take what repeat_kv takes; attention variants take what grouped_query_attention takes,
(q, k, v, causal), in float64, and return its output. Each swaps one step of the right computation
for the buggy one and keeps every other step right.
"""

import numpy as np

from checker.testkit import variant


# --- which kv head each query head reads ------------------------------------------------------------

def kv_head_of(i, h_q, h_kv):
    """The kv head that query head i reads: its group's, i // (h_q / h_kv)."""
    return i // (h_q // h_kv)


def tiled_head_of(i, h_q, h_kv):
    """The kv head that tiled kv heads (np.tile, or i % h_kv) give query head i."""
    return i % h_kv


def _gather(x, head_of, h_q):
    """x's heads rearranged so head i of the result is x's head head_of(i, h_q, h_kv)."""
    h_kv = x.shape[1]
    return x[:, [head_of(i, h_q, h_kv) for i in range(h_q)]]  # (b, h_q, n, d)


TILED = ("query head i read kv head i % h_kv, as np.tile (or a modulo index, or a reshape to (group, h_kv)) "
         "lays the kv heads out; it must read kv head i // (h_q / h_kv), its group's: repeat each kv head "
         "next to itself, np.repeat(k, group, axis=1)")


@variant("kv-heads-tiled")
def _repeat_tiled(x, n_rep):
    """the heads were tiled (np.tile(x, (1, n_rep, 1, 1))): head j is input head j % h_kv; it must be
    input head j // n_rep, each head's copies side by side (np.repeat(x, n_rep, axis=1))"""
    return np.tile(x, (1, n_rep, 1, 1))  # (b, h_kv * n_rep, n, d)


REPEAT_VARIANTS = [_repeat_tiled]


# --- attention, right and wrong ------------------------------------------------------------------------

def _softmax(scores):
    """Stable softmax over the keys; a row of only -inf gives NaN (no row is, with n_q <= n_k)."""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def bottom_right(n_q, n_k):
    """True where query t (position n_k - n_q + t) may see key j: j <= n_k - n_q + t."""
    return np.arange(n_k) <= np.arange(n_k - n_q, n_k)[:, None]  # (n_q, n_k)


def top_left(n_q, n_k):
    return np.tril(np.ones((n_q, n_k), dtype=bool))  # (n_q, n_k)


def _attention(q, k, v, causal=True, *, head_of=kv_head_of, scale=True, mask=bottom_right, after=None):
    """Grouped-query attention with one step swapped for a buggy one.

    `after` (a function of weights and the mask) replaces masking the scores with editing the weights.
    """
    h_q, n_q, d = q.shape[1:]
    n_k = k.shape[2]
    k, v = _gather(k, head_of, h_q), _gather(v, head_of, h_q)  # (b, h_q, n_k, d), (b, h_q, n_k, d_v)
    scores = q @ np.swapaxes(k, -1, -2) / (np.sqrt(d) if scale else 1.0)  # (b, h_q, n_q, n_k)
    allowed = mask(n_q, n_k) if causal and mask else np.ones((n_q, n_k), dtype=bool)
    if after is None:
        return _softmax(np.where(allowed, scores, -np.inf)) @ v  # (b, h_q, n_q, d_v)
    return after(_softmax(scores), allowed) @ v


@variant("kv-heads-tiled")
def _tiled(q, k, v, causal=True):
    return _attention(q, k, v, causal, head_of=tiled_head_of)


@variant("missing-scale")
def _unscaled(q, k, v, causal=True):
    """the scores were never divided by sqrt(d): divide q . k by the square root of the key size d"""
    return _attention(q, k, v, causal, scale=False)


@variant("mask-top-left")
def _top_left(q, k, v, causal=True):
    """the causal mask is aligned top-left (np.tril(np.ones((n_q, n_k)))); the queries are the LAST n_q of
    the n_k positions, so query t sees keys 0 to n_k - n_q + t"""
    return _attention(q, k, v, causal, mask=top_left)


@variant("causal-ignored")
def _never_masks(q, k, v, causal=True):
    """no causal mask was applied although causal=True (the default): query t must see keys 0 to
    n_k - n_q + t only"""
    return _attention(q, k, v, False)


@variant("causal-ignored")
def _always_masks(q, k, v, causal=True):
    """a causal mask was applied although causal=False: every query must see every key"""
    return _attention(q, k, v, True)


@variant("causal-ignored")
def _always_masks_top_left(q, k, v, causal=True):
    """a causal mask was applied although causal=False: every query must see every key"""
    if causal:
        raise ValueError("with causal=True this is mask-top-left's output")
    return _attention(q, k, v, True, mask=top_left)


def _zeroed(weights, allowed):
    return weights * allowed


def _renormalised(weights, allowed):
    kept = weights * allowed
    total = kept.sum(axis=-1, keepdims=True)
    return np.divide(kept, total, out=np.zeros_like(kept), where=total != 0)


def _renormalised_nan(weights, allowed):
    kept = weights * allowed
    return kept / kept.sum(axis=-1, keepdims=True)


MASK_AFTER = ("the mask zeroed weights after the softmax: the future had already taken its share, so the "
              "visible weights no longer sum to 1 (and renormalising cannot bring back weights that "
              "underflowed to 0); block the scores before the softmax")


@variant("mask-after-softmax")
def _masked_after(q, k, v, causal=True):
    return _attention(q, k, v, causal, after=_zeroed)


@variant("mask-after-softmax")
def _masked_after_renormalised(q, k, v, causal=True):
    return _attention(q, k, v, causal, after=_renormalised)


@variant("mask-after-softmax")
def _masked_after_renormalised_nan(q, k, v, causal=True):
    return _attention(q, k, v, causal, after=_renormalised_nan)


for _function in (_masked_after, _masked_after_renormalised, _masked_after_renormalised_nan):
    _function.__doc__ = MASK_AFTER
_tiled.__doc__ = TILED


GQA_VARIANTS = [_tiled, _unscaled, _top_left, _never_masks, _always_masks, _always_masks_top_left, _masked_after,
                _masked_after_renormalised, _masked_after_renormalised_nan]

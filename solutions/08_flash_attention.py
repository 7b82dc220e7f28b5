"""Kata 08: tiled attention with an online softmax (FlashAttention's idea, in NumPy).

Plain attention builds the whole (n_q, n_k) table of scores, then its softmax: memory that grows with
n_q * n_k. FlashAttention never holds that table. It visits the keys in blocks and keeps, for each
query, three running numbers: the largest score seen so far (m), the sum of exp(score - m) so far (l)
and the weighted sum of values so far (o). At the end o / l is exactly softmax(scores) @ v, whatever
the block size.

Hint: when a block brings a larger score, the old sum and output were measured against the old max,
so both are multiplied by exp(m_old - m_new) before the block is added.
"""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    """Attention computed block by block over the keys, with an online softmax.

    Args:
        q: queries, shape (..., n_q, d).
        k: keys, shape (..., n_k, d).
        v: values, shape (..., n_k, d_v). q, k and v share their leading dims (batch, heads);
           float32 or float64 arrays.
        block_size: keys per block (an int >= 1); the last block may be shorter.
        causal: when True, query i may see key j iff j <= n_k - n_q + i (the queries are the LAST
                n_q of the n_k positions, bottom-right as kata 03).
        mask: None, or a bool array broadcastable to (..., n_q, n_k) whose leading dims are among q's:
              True = may attend (a key-padding mask is (..., 1, n_k)). With causal=True both apply.

    Returns:
        (..., n_q, d_v), equal to softmax(q . k^T / sqrt(d), masked) @ v, floating point (float32
        inside is fine).
        - Keys are visited in order, in blocks of block_size, keeping per query a running max m, a
          running sum l of exp(score - m) and a running output o; when a block raises the max, l and
          o are first multiplied by exp(m_old - m_new). o is divided by l at the end.
        - Nothing of size n_q * n_k is ever built (the caller's mask aside): extra memory is
          O(n_q * (block_size + d_v) + (n_q + n_k) * d); copies or casts of the inputs are fine.
        - A block whose keys are all masked for a query changes nothing for it, even the first block
          (left padding): never -inf - (-inf) = NaN. A query with no visible key gets a zero output.
        - Any block_size >= 1 gives the same numbers (to float tolerance).
        q, k, v and mask are left unchanged.

    Example (one query, keys in blocks of 2; the max grows from 1 to 3 in the second block):
        >>> q = np.array([[1.0, 0.0]]) * np.sqrt(2)  # scores are q . k / sqrt(2) = the keys' first channel
        >>> k = np.array([[1.0, 0], [0, 0], [3, 0]])
        >>> v = np.array([[1.0], [2.0], [3.0]])
        >>> flash_attention(q, k, v, block_size=2).round(4)
        array([[2.7296]])
    """
    dtype = np.result_type(q, k, v, np.float32)
    q, k, v = (np.asarray(x, dtype) for x in (q, k, v))  # a cast only when needed, never written to
    *lead, n_q, d = q.shape
    n_k, d_v = k.shape[-2], v.shape[-1]
    scale = dtype.type(1 / np.sqrt(d))
    allowed = None if mask is None else np.broadcast_to(  # a view: no (n_q, n_k) copy
        np.asarray(mask, bool), np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    m = np.full((*lead, n_q, 1), -np.inf, dtype)  # (..., n_q, 1) running max
    l = np.zeros((*lead, n_q, 1), dtype)  # (..., n_q, 1) running sum of exp(score - m)
    o = np.zeros((*lead, n_q, d_v), dtype)  # (..., n_q, d_v) running sum of exp(score - m) * value
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        scores = q @ np.swapaxes(k[..., start:stop, :], -1, -2) * scale  # (..., n_q, B)
        visible = _visible(allowed, causal, n_q, n_k, start, stop)  # (..., n_q, B) or None
        if visible is not None:
            scores = np.where(visible, scores, -np.inf)
        m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))  # (..., n_q, 1)
        # a query that has seen no key yet keeps m = -inf: shift by 0 so exp(-inf) = 0, never -inf - (-inf)
        shift = np.where(np.isneginf(m_new), 0, m_new)  # (..., n_q, 1)
        p = np.exp(scores - shift)  # (..., n_q, B)
        rescale = np.exp(m - shift)  # (..., n_q, 1): exp(m_old - m_new) <= 1
        l = l * rescale + p.sum(axis=-1, keepdims=True)  # (..., n_q, 1)
        o = o * rescale + p @ v[..., start:stop, :]  # (..., n_q, d_v)
        m = m_new
    return np.divide(o, l, out=np.zeros_like(o), where=l > 0)  # (..., n_q, d_v): no visible key gives 0


def _visible(allowed, causal, n_q, n_k, start, stop):
    """Which keys start..stop-1 each query may see, (..., n_q, B), or None when every key is visible."""
    visible = None if allowed is None else allowed[..., start:stop]  # (..., n_q, B)
    if causal:
        # query i is position n_k - n_q + i among the keys (bottom-right, as kata 03)
        near = np.arange(start, stop) <= np.arange(n_k - n_q, n_k)[:, None]  # (n_q, B)
        visible = near if visible is None else visible & near
    return visible

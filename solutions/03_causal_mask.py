"""Kata 03: causal mask placement.

A causal mask lets each query see its own position and the earlier ones, never the future. When
there are fewer queries than keys (a prompt continued, a decode step) the queries are the LAST
n_q of the n_k positions, so the mask's diagonal sits in its bottom-right corner. A blocked key
gets weight exactly 0, and the visible ones still sum to 1.

Trap: the mask acts on the scores before the softmax, not on the weights after it.
"""

import numpy as np


def causal_mask(n_q, n_k=None):
    """The causal mask of n_q queries over n_k keys, aligned bottom-right.

    Args:
        n_q: number of queries.
        n_k: number of keys; None means n_k = n_q.

    Returns:
        Bool array (n_q, n_k), True = may attend. The queries are the last n_q of the n_k
        positions: query i may see key j iff j <= n_k - n_q + i. With n_q > n_k the first
        n_q - n_k rows are all False (those queries have no key to see).

    Example:
        >>> causal_mask(3)
        array([[ True, False, False],
               [ True,  True, False],
               [ True,  True,  True]])
        >>> causal_mask(2, 4)  # the 2 queries are positions 2 and 3 of 4
        array([[ True,  True,  True, False],
               [ True,  True,  True,  True]])
    """
    n_k = n_q if n_k is None else n_k
    query_position = np.arange(n_k - n_q, n_k)[:, None]  # (n_q, 1): where each query sits among the keys
    return np.arange(n_k)[None, :] <= query_position  # (n_q, n_k)


def _softmax_last_axis(x):
    """Softmax over the last axis; a slice of only -inf gives zeros, not NaN."""
    peak = np.max(x, axis=-1, keepdims=True)
    peak = np.where(np.isneginf(peak), 0, peak)  # a query with no visible key: exp gives zeros
    e = np.exp(x - peak)
    total = np.sum(e, axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)


def attention(q, k, v, mask=None):
    """Scaled dot-product attention with an optional boolean mask.

    Args:
        q: queries, shape (..., n_q, d_k).
        k: keys, shape (..., n_k, d_k).
        v: values, shape (..., n_k, d_v). Leading dimensions (batch, heads) broadcast.
           NumPy arrays (float16 included), integer arrays or nested lists.
        mask: None (every query sees every key) or a bool array broadcastable to
              (..., n_q, n_k): True = may attend, as PyTorch's boolean attn_mask.

    Returns:
        (out, weights): out (..., n_q, d_v), weights (..., n_q, n_k), floating point.
        - Scores are q . k / sqrt(d_k); the mask acts on them before the softmax over the keys.
        - A blocked key gets weight exactly 0; the weights of a query with at least one visible
          key sum to 1, whatever the scores (real scores of -1e5 or +1e5 do not leak through).
        - A query with no visible key gets all-zero weights and a zero output, never NaN.
        - float16 inputs work without NaN (computing in float32 inside is fine).
        q, k, v and mask are left unchanged.

    Example ("order 4471 shipped": queries, keys and values of the three tokens):
        >>> q = [[2, 1], [0, 1], [1, 1]]
        >>> k = [[2, 1], [0, 1], [1, 0]]
        >>> v = [[3, 0], [0, 4], [1, 1]]
        >>> out, weights = attention(q, k, v, causal_mask(3))
        >>> weights.round(3)
        array([[1.   , 0.   , 0.   ],
               [0.5  , 0.5  , 0.   ],
               [0.673, 0.164, 0.164]])
        >>> out.round(2)
        array([[3.  , 0.  ],
               [1.5 , 2.  ],
               [2.18, 0.82]])

    Example (tokens A, B, C as queries over the keys A and B: query A has no key to see):
        >>> x = [[2, 0], [0, 2], [1, 1]]
        >>> out, weights = attention(x, x[:2], x[:2], causal_mask(3, 2))
        >>> weights
        array([[0. , 0. ],
               [1. , 0. ],
               [0.5, 0.5]])
        >>> out
        array([[0., 0.],
               [2., 0.],
               [1., 1.]])
    """
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    dtype = np.result_type(q, k, v, np.float32)  # float16 -> float32: -inf and exp stay sane
    q, k, v = q.astype(dtype), k.astype(dtype), v.astype(dtype)  # copies: the caller's arrays stay as they are
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / dtype.type(np.sqrt(d_k))  # (..., n_q, n_k)
    if mask is not None:
        # -inf, not a finite fill: no real score can go below it or overflow it
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = _softmax_last_axis(scores)  # (..., n_q, n_k)
    return weights @ v, weights  # (..., n_q, d_v), (..., n_q, n_k)

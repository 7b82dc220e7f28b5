"""Kata 03: causal mask placement.

A causal mask lets each query see its own position and the earlier ones, never the future. When
there are fewer queries than keys (a prompt continued, a decode step) the queries are the LAST
n_q of the n_k positions, so the mask's diagonal sits in its bottom-right corner. A blocked key
gets weight exactly 0, and the visible ones still sum to 1.

Trap: the mask acts on the scores before the softmax, not on the weights after it.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def causal_mask(n_q, n_k=None):
    """The causal mask of n_q queries over n_k keys, aligned bottom-right.

    Args:
        n_q: number of queries.
        n_k: number of keys; None means n_k = n_q.

    Returns:
        Bool tensor (n_q, n_k), True = may attend. The queries are the last n_q of the n_k
        positions: query i may see key j iff j <= n_k - n_q + i. With n_q > n_k the first
        n_q - n_k rows are all False (those queries have no key to see).

    Example:
        >>> causal_mask(3)
        tensor([[ True, False, False],
                [ True,  True, False],
                [ True,  True,  True]])
        >>> causal_mask(2, 4)  # the 2 queries are positions 2 and 3 of 4
        tensor([[ True,  True,  True, False],
                [ True,  True,  True,  True]])
    """
    # TODO: n_k defaults to n_q.
    # TODO: query i sits at position n_k - n_q + i among the keys; it may see every key up to there.
    # TODO: return a bool (n_q, n_k) tensor, True = may attend.
    raise NotImplementedError("kata 03: write causal_mask")


def attention(q, k, v, mask=None):
    """Scaled dot-product attention with an optional boolean mask.

    Args:
        q: queries, shape (..., n_q, d_k).
        k: keys, shape (..., n_k, d_k).
        v: values, shape (..., n_k, d_v). Leading dimensions (batch, heads) broadcast.
           Tensors (float16 included), integer tensors or nested lists.
        mask: None (every query sees every key) or a bool tensor broadcastable to
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
        >>> weights.round(decimals=3)
        tensor([[1.0000, 0.0000, 0.0000],
                [0.5000, 0.5000, 0.0000],
                [0.6730, 0.1640, 0.1640]])
        >>> out.round(decimals=2)
        tensor([[3.0000, 0.0000],
                [1.5000, 2.0000],
                [2.1800, 0.8200]])

    Example (tokens A, B, C as queries over the keys A and B: query A has no key to see):
        >>> x = [[2, 0], [0, 2], [1, 1]]
        >>> out, weights = attention(x, x[:2], x[:2], causal_mask(3, 2))
        >>> weights
        tensor([[0.0000, 0.0000],
                [1.0000, 0.0000],
                [0.5000, 0.5000]])
        >>> out
        tensor([[0., 0.],
                [2., 0.],
                [1., 1.]])
    """
    # TODO: make q, k, v floating-point tensors (float16 may be computed in float32), without changing them.
    # TODO: score every query against every key, scaled by 1/sqrt(d_k): (..., n_q, n_k).
    # TODO: where the mask is False, block the score BEFORE the softmax so the key gets weight exactly 0.
    # TODO: softmax over the keys (write a helper); a query with no visible key gets zeros, never NaN.
    # TODO: mix the values with the weights and return (out, weights).
    raise NotImplementedError("kata 03: write attention")

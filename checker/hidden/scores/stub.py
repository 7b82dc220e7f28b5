"""Kata 01: dot-product attention scores.

Every query is compared with every key by a dot product, and the table is scaled by 1/sqrt(d_k)
so that its spread stays near 1 whatever the head size.
"""

import numpy as np


def attention_scores(q, k):
    """The scaled score table q @ k^T / sqrt(d_k).

    Args:
        q: queries, shape (..., n_q, d_k): one row per query.
        k: keys, shape (..., n_k, d_k): one row per key.
           Leading dimensions (batch, heads) broadcast against q's.
           NumPy arrays, integer arrays or nested lists.

    Returns:
        Floating-point array (..., n_q, n_k): entry [..., i, j] is q_i . k_j / sqrt(d_k).
        Integer inputs give float scores, never truncated ones (float64 is always fine).
        The inputs are left unchanged.

    Example (the "order 4471 shipped" queries and keys, d_k = 2):
        >>> q = [[2, 1], [0, 1], [1, 1]]
        >>> k = [[2, 1], [0, 1], [1, 0]]
        >>> attention_scores(q, k).round(3)
        array([[3.536, 0.707, 1.414],
               [0.707, 0.707, 0.   ],
               [2.121, 0.707, 0.707]])
    """
    # TODO: make q and k arrays whose products are never truncated.
    # TODO: compare every query with every key in one matrix product: (..., n_q, n_k).
    # TODO: scale the table.
    raise NotImplementedError("kata 01: write attention_scores")

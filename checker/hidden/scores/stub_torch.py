"""Kata 01: dot-product attention scores.

Every query is compared with every key by a dot product, and the table is scaled by 1/sqrt(d_k)
so that its spread stays near 1 whatever the head size.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def attention_scores(q, k):
    """The scaled score table q @ k^T / sqrt(d_k).

    Args:
        q: queries, shape (..., n_q, d_k): one row per query.
        k: keys, shape (..., n_k, d_k): one row per key.
           Leading dimensions (batch, heads) broadcast against q's.
           Tensors, integer tensors or nested lists.

    Returns:
        Floating-point tensor (..., n_q, n_k): entry [..., i, j] is q_i . k_j / sqrt(d_k).
        Integer inputs give float scores, never truncated ones (float64 is always fine).
        The inputs are left unchanged.

    Example (the "order 4471 shipped" queries and keys, d_k = 2):
        >>> q = [[2, 1], [0, 1], [1, 1]]
        >>> k = [[2, 1], [0, 1], [1, 0]]
        >>> attention_scores(q, k).round(decimals=3)
        tensor([[3.5360, 0.7070, 1.4140],
                [0.7070, 0.7070, 0.0000],
                [2.1210, 0.7070, 0.7070]], dtype=torch.float64)
    """
    # TODO: make q and k tensors whose products are never truncated.
    # TODO: compare every query with every key in one matrix product: (..., n_q, n_k).
    # TODO: scale the table.
    raise NotImplementedError("kata 01: write attention_scores")

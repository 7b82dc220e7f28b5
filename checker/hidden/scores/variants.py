"""What code carrying each catalogued bug of kata 01 computes, to recognise it by its output.

Score variants take (q, k) like attention_scores. Divisor variants are the scale bugs as one piece,
`divisor(d_head, n_q, n_k)`: the number the scores were divided by. Later katas build their attention
variants from these pieces, so a scale bug keeps its id wherever scores are scaled.
"""

import numpy as np

from checker.testkit import variant


def right_divisor(d_head, n_q, n_k):
    return np.sqrt(d_head)


@variant("missing-scale", of="divisor")
def _no_divisor(d_head, n_q, n_k):
    """the 1/sqrt(d_k) scale is missing"""
    return 1.0


@variant("scale-by-dk", of="divisor")
def _by_d(d_head, n_q, n_k):
    """the scores were divided by d_k instead of sqrt(d_k) (or q and k were each scaled by 1/sqrt(d_k))"""
    return float(d_head)


@variant("scale-inverted", of="divisor")
def _inverted(d_head, n_q, n_k):
    """the scores were multiplied by sqrt(d_k) instead of divided by it"""
    return 1 / np.sqrt(d_head)


@variant("scale-by-seq-len", of="divisor")
def _by_queries(d_head, n_q, n_k):
    """the scores were divided by the square root of n_q, a token count, instead of sqrt(d_k)"""
    return np.sqrt(n_q)


@variant("scale-by-seq-len", of="divisor")
def _by_keys(d_head, n_q, n_k):
    """the scores were divided by the square root of n_k, a token count, instead of sqrt(d_k)"""
    return np.sqrt(n_k)


@variant("batch-transpose", of="scores")
def _full_transpose(q, k):
    """k.T reverses every axis of a batched k, not just the last two: use np.swapaxes(k, -1, -2)"""
    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
    return q @ k.T / np.sqrt(q.shape[-1])


@variant("reshape-as-transpose", of="scores")
def _reshape_as_transpose(q, k):
    """k was reshaped to (d_k, n_k), which reorders its numbers instead of transposing them"""
    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
    return q @ k.reshape(*k.shape[:-2], k.shape[-1], k.shape[-2]) / np.sqrt(q.shape[-1])


@variant("keys-against-queries", of="scores")
def _keys_against_queries(q, k):
    """this is k @ q^T, the table transposed: rows must be queries, columns keys"""
    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
    return k @ np.swapaxes(q, -1, -2) / np.sqrt(q.shape[-1])

"""The answers of kata 01's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import math

from checker.practice.worked import ORDER_WK, ORDER_WQ, ORDER_X, matmul, reference


def score_table_shape(n_q, n_k, d_k):
    return (n_q, n_k)


def batched_score_shape(b, h, n, d_head):
    return (b, h, n, n)


def sqrt_dk(d_k):
    return math.sqrt(d_k)


def dot_product_variance(d_k):
    """Each product of two independent unit-variance entries has variance 1; d_k of them add up."""
    return d_k


def dot_product_spread(d_k):
    return math.sqrt(d_k)


def scaled_variance(d_k):
    return dot_product_variance(d_k) / sqrt_dk(d_k) ** 2


def scores_per_head(n):
    return n * n


def scores_per_layer(b, h, n):
    return b * h * n * n


def order_shipped_scores():
    """The scaled scores of "shipped" against the three tokens of "order 4471 shipped"."""
    q, k = matmul(ORDER_X, ORDER_WQ), matmul(ORDER_X, ORDER_WK)
    return reference("scores").attention_scores(q, k)[2]

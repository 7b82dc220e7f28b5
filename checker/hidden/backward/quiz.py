"""The answers of kata 11's quiz questions, computed from their drawn values (prompts.yaml names them)."""

from checker.practice.worked import ORDER_WK, ORDER_WQ, ORDER_WV, ORDER_X, matmul, reference


def ds_shape(b, h, n_q, n_k, d, d_v):
    """dS is the gradient of the scores: one number per (query, key), as S."""
    return (b, h, n_q, n_k)


def dv_shape(b, h, n_q, n_k, d, d_v):
    """dv has v's shape: P^T (n_k, n_q) times d_out (n_q, d_v)."""
    return (b, h, n_k, d_v)


def stored_weights_mib(b, h, n):
    """Keeping P of every head for the backward pass: b * h * n * n float32 numbers."""
    return b * h * n * n * 4 / 2**20


def logsumexp_kib(b, h, n):
    """FlashAttention-2 keeps one float32 logsumexp per query and head."""
    return b * h * n * 4 / 2**10


def recompute_multiply_adds(n, d):
    """Recomputing S = q . k^T for one head: n * n dot products of d multiply-adds."""
    return n * n * d


def jacobians_mib(n):
    """An (n, n) float32 Jacobian for each of n queries of one head."""
    return n * n * n * 4 / 2**20


def softmax_input_gradient(s1, s2, s3, g1, g2, g3):
    """dx of a softmax over the scores (s1, s2, s3), given dy = (g1, g2, g3)."""
    y = reference("softmax").softmax([s1, s2, s3])
    return reference("backward").softmax_backward(y, [float(g1), float(g2), float(g3)])


def _order_backward():
    """(dq, dk, dv) of "order 4471 shipped" with the causal mask and d_out = ones."""
    import numpy as np

    q, k, v = matmul(ORDER_X, ORDER_WQ), matmul(ORDER_X, ORDER_WK), matmul(ORDER_X, ORDER_WV)
    causal = reference("causal-mask").causal_mask(3)
    return reference("backward").attention_backward(q, k, v, np.ones((3, 2)), causal)


def order_dv_of_order():
    return _order_backward()[2][0]


def order_dq_of_4471():
    return _order_backward()[0][1]

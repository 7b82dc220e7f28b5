"""The answers of kata 03's quiz questions, computed from their drawn values (prompts.yaml names them)."""

from checker.practice.worked import ORDER_WK, ORDER_WQ, ORDER_WV, ORDER_X, matmul, reference


def _mask(n_q, n_k):
    return reference("causal-mask").causal_mask(n_q, n_k)


def first_query_keys(n_q, n_k):
    return int(_mask(n_q, n_k)[0].sum())


def visible_cells(n_q, n_k):
    return int(_mask(n_q, n_k).sum())


def blind_queries(n_q, n_k):
    """Queries that see no key at all (rows of the mask that are all False)."""
    return int((~_mask(n_q, n_k).any(axis=1)).sum())


def predictions_per_pass(n):
    """Position i predicts token i + 1, which the mask hid from it: every position but the last."""
    return n - 1


def _order_attention(keys=None):
    """The causal attention of "order 4471 shipped" (optionally with other keys): (out, weights)."""
    import numpy as np

    q, k, v = matmul(ORDER_X, ORDER_WQ), matmul(ORDER_X, ORDER_WK), matmul(ORDER_X, ORDER_WV)
    if keys is not None:
        k = np.asarray(keys, float)
    return reference("causal-mask").attention(q, k, v, _mask(3, 3))


def order_4471_weights():
    return _order_attention()[1][1]


def order_shipped_weights():
    return _order_attention()[1][2]


def order_shipped_output():
    return _order_attention()[0][2]


def order_4471_weights_with_key_20():
    """The seed's self-test: "4471" with key (2, 0) instead of (0, 1)."""
    keys = matmul(ORDER_X, ORDER_WK)
    keys[1] = [2.0, 0.0]
    return _order_attention(keys)[1][1]

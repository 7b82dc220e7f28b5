"""The answers of templated and worked quiz questions, computed from their drawn values.

prompts.yaml names these functions (`answer: score_table_shape`); no answer is typed by hand.
Worked examples call the reference solutions, so their numbers are the references' own.
"""

import math

from checker import catalog

# The seeds' hand-worked examples.
ABC = [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]  # tokens A, B, C
ORDER_X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]  # "order", "4471", "shipped"
ORDER_WQ = [[1, 0], [0, 1], [1, 1], [0, 0]]
ORDER_WK = [[1, 0], [0, 0], [1, 1], [0, 1]]
ORDER_WV = [[1, 0], [0, 1], [2, 0], [0, 3]]


def _reference(slug):
    return catalog.find(slug).reference()


def _matmul(a, b):
    import numpy as np

    return np.asarray(a, float) @ np.asarray(b, float)


# --- 01 scores -----------------------------------------------------------------------------------

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
    q, k = _matmul(ORDER_X, ORDER_WQ), _matmul(ORDER_X, ORDER_WK)
    return _reference("scores").attention_scores(q, k)[2]


# --- 02 softmax ----------------------------------------------------------------------------------

def uniform_weight(n):
    return 1 / n


def spread_weights(s):
    """Softmax of the scores (s, 0, -s)."""
    return _reference("softmax").softmax([float(s), 0.0, -float(s)])


def softmax_slope(w):
    """The slope of a softmax weight with respect to its own score."""
    return w * (1 - w)


def abc_scaled_weights_row_a():
    x = _reference("scores").attention_scores(ABC, ABC)
    return _reference("softmax").softmax(x)[0]


def abc_unscaled_weights_row_a():
    return _reference("softmax").softmax(_matmul(ABC, [[2.0, 0.0, 1.0], [0.0, 2.0, 1.0]])[0])


# --- 04 multi-head -------------------------------------------------------------------------------

def split_shape(b, n, d_model, h):
    return (b, h, n, d_model // h)


def head_size(d_model, h):
    return d_model // h


def head_scale(d_model, h):
    return math.sqrt(d_model // h)


def projection_parameters(d_model):
    """W_Q, W_K, W_V and W_O, each d_model x d_model, no biases."""
    return 4 * d_model * d_model


def merged_shape(b, h, n, d_head):
    return (b, n, h * d_head)


def abc_causal_output_row_b():
    """Row B of the A/B/C example with the causal mask: one head, identity projections."""
    import numpy as np

    x = np.array([ABC])  # (1, 3, 2)
    eye = np.eye(2)
    return _reference("multi-head").multi_head_attention(x, eye, eye, eye, eye, 1, causal=True)[0, 1]


# --- 03 causal mask --------------------------------------------------------------------------------

def _mask(n_q, n_k):
    return _reference("causal-mask").causal_mask(n_q, n_k)


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

    q, k, v = _matmul(ORDER_X, ORDER_WQ), _matmul(ORDER_X, ORDER_WK), _matmul(ORDER_X, ORDER_WV)
    if keys is not None:
        k = np.asarray(keys, float)
    return _reference("causal-mask").attention(q, k, v, _mask(3, 3))


def order_4471_weights():
    return _order_attention()[1][1]


def order_shipped_weights():
    return _order_attention()[1][2]


def order_shipped_output():
    return _order_attention()[0][2]


def order_4471_weights_with_key_20():
    """The seed's self-test: "4471" with key (2, 0) instead of (0, 1)."""
    keys = _matmul(ORDER_X, ORDER_WK)
    keys[1] = [2.0, 0.0]
    return _order_attention(keys)[1][1]


# --- 05 KV cache -----------------------------------------------------------------------------------

def decode_scores(n):
    """One new query against n cached keys."""
    return n


def recompute_scores(n):
    """The whole n x n table again, as if there were no cache."""
    return n * n


def cache_numbers(layers, b, h, n, d_head):
    """Keys and values, for every layer, example, head and position."""
    return 2 * layers * b * h * n * d_head


def cache_mebibytes_fp16(layers, b, h, n, d_head):
    return cache_numbers(layers, b, h, n, d_head) * 2 / 2**20


def cached_positions(prefill, steps):
    return prefill + steps


def cached_keys_shape(b, h, prefill, steps, d_head):
    return (b, h, prefill + steps, d_head)


def chunk_scores_shape(t, n):
    """t new queries against all n cached keys (the new ones included)."""
    return (t, n)


def decode_projection_work(d_model):
    """Multiply-adds to project one new token through W_Q, W_K, W_V and W_O."""
    return 4 * d_model * d_model

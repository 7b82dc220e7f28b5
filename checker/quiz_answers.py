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

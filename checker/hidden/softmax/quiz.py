"""The answers of kata 02's quiz questions, computed from their drawn values (prompts.yaml names them)."""

from checker.practice.worked import ABC, matmul, reference


def uniform_weight(n):
    return 1 / n


def spread_weights(s):
    """Softmax of the scores (s, 0, -s)."""
    return reference("softmax").softmax([float(s), 0.0, -float(s)])


def softmax_slope(w):
    """The slope of a softmax weight with respect to its own score."""
    return w * (1 - w)


def abc_scaled_weights_row_a():
    x = reference("scores").attention_scores(ABC, ABC)
    return reference("softmax").softmax(x)[0]


def abc_unscaled_weights_row_a():
    return reference("softmax").softmax(matmul(ABC, [[2.0, 0.0, 1.0], [0.0, 2.0, 1.0]])[0])

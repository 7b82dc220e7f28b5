"""The references reproduce the design card's worked examples. (That every stub is its solution minus the
bodies, and that the docstring examples hold, is `kata dev check`'s: see test_selfcheck.py.)"""

import numpy as np

from checker import catalog


def reference(slug):
    return catalog.find(slug).reference()


def test_softmax_of_row_a():
    # worked example: scores [4, 0, 2] -> weights [0.867, 0.016, 0.117]
    assert reference("softmax").softmax([4, 0, 2]).round(3).tolist() == [0.867, 0.016, 0.117]


def test_abc_scaled_scores_and_weights():
    # worked example: A = [2, 0], B = [0, 2], C = [1, 1] as queries and keys; row A scaled is [2.83, 0, 1.41]
    x = [[2, 0], [0, 2], [1, 1]]
    scores = reference("scores").attention_scores(x, x)
    assert scores.round(2).tolist()[0] == [2.83, 0.0, 1.41]
    weights = reference("softmax").softmax(scores)
    assert weights[0].round(3).tolist() == [0.768, 0.045, 0.187]
    assert np.allclose(weights[2], 1 / 3)  # row C: three equal scores
    assert (weights @ np.array(x, float)).round(3).tolist()[0] == [1.723, 0.277]


def test_order_4471_shipped():
    # worked example: Q, K of "order 4471 shipped"; the row of "shipped" scaled is (2.121, 0.707, 0.707)
    q = [[2, 1], [0, 1], [1, 1]]
    k = [[2, 1], [0, 1], [1, 0]]
    scores = reference("scores").attention_scores(q, k)
    assert scores.round(3).tolist()[2] == [2.121, 0.707, 0.707]
    masked = np.where(np.tril(np.ones((3, 3), bool)), scores, -np.inf)  # the causal mask, by hand
    weights = reference("softmax").softmax(masked)
    assert weights.round(3).tolist() == [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.673, 0.164, 0.164]]
    v = np.array([[3, 0], [0, 4], [1, 1]], float)
    assert (weights @ v).round(2).tolist() == [[3.0, 0.0], [1.5, 2.0], [2.18, 0.82]]

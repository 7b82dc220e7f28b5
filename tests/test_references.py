"""The references reproduce the design card's worked examples. (That every stub is its solution minus the
bodies, and that the docstring examples hold, is `kata dev check`'s: see test_selfcheck.py.)"""

import numpy as np

from checker.engine import catalog


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


def _numeric_gradient(loss, x, step=1e-6):
    """d loss / d x by central differences, entry by entry."""
    grad = np.zeros_like(x)
    for index in np.ndindex(*x.shape):
        keep = x[index]
        x[index] = keep + step
        up = loss()
        x[index] = keep - step
        grad[index] = (up - loss()) / (2 * step)
        x[index] = keep
    return grad


def _attention_gradients_by_differences(q, k, v, d_out, mask):
    """(dq, dk, dv) of sum(attention(q, k, v, mask) * d_out), kata 03's forward pass, by finite differences."""
    attention = reference("causal-mask").attention

    def loss():
        return float(np.sum(attention(q, k, v, mask)[0] * d_out))

    return [_numeric_gradient(loss, x) for x in (q, k, v)]


def test_attention_backward_matches_finite_differences():
    # batch, heads, n_q != n_k != d != d_v, a padding mask leaving queries with no visible key, k shared by all
    rng = np.random.default_rng(11)
    q, k, v, d_out = rng.normal(size=(2, 2, 4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(2, 1, 5, 2)), \
        rng.normal(size=(2, 2, 4, 2))
    mask = reference("causal-mask").causal_mask(4, 5) & np.array([[1, 1, 1, 1, 1], [0, 0, 0, 1, 1]], bool)[:, None, None]
    got = reference("backward").attention_backward(q, k, v, d_out, mask)
    for mine, numeric in zip(got, _attention_gradients_by_differences(q, k, v, d_out, mask)):
        assert mine.shape == numeric.shape
        np.testing.assert_allclose(mine, numeric, rtol=1e-6, atol=1e-8)


def test_attention_backward_worked_example_matches_finite_differences():
    # the docstring's "order 4471 shipped" example, d_out = ones: its doctest prints the reference's numbers
    q, k, v = (np.array(x, float) for x in ([[2, 1], [0, 1], [1, 1]], [[2, 1], [0, 1], [1, 0]], [[3, 0], [0, 4], [1, 1]]))
    mask = reference("causal-mask").causal_mask(3)
    got = reference("backward").attention_backward(q, k, v, np.ones((3, 2)), mask)
    for mine, numeric in zip(got, _attention_gradients_by_differences(q, k, v, np.ones((3, 2)), mask)):
        np.testing.assert_allclose(mine, numeric, rtol=1e-6, atol=1e-8)


def test_softmax_backward_matches_finite_differences():
    rng = np.random.default_rng(12)
    x, dy = rng.normal(size=(3, 4, 2)) * 2, rng.normal(size=(3, 4, 2))
    for axis in (0, 1, -1):
        y = reference("softmax").softmax(x, axis)
        numeric = _numeric_gradient(lambda: float(np.sum(reference("softmax").softmax(x, axis) * dy)), x)
        np.testing.assert_allclose(reference("backward").softmax_backward(y, dy, axis), numeric, rtol=1e-6, atol=1e-8)

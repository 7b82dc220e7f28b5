"""The design card's worked examples, shared by the quiz answers of several katas.

Their numbers are never typed into an answer: each quiz function runs a reference solution on them.
"""

import numpy as np

from checker.engine import catalog

ABC = [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]  # tokens A, B, C
ORDER_X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]  # "order", "4471", "shipped"
ORDER_WQ = [[1, 0], [0, 1], [1, 1], [0, 0]]
ORDER_WK = [[1, 0], [0, 0], [1, 1], [0, 1]]
ORDER_WV = [[1, 0], [0, 1], [2, 0], [0, 3]]


def reference(kata_key):
    """A kata's reference solution (trusted code, loaded here)."""
    return catalog.find(kata_key).reference()


def matmul(a, b):
    return np.asarray(a, float) @ np.asarray(b, float)


def settings():
    """The worked examples' vectors as prompts show them ({order_queries}, {abc}, ...), computed like the
    answers, so a question states its whole setting without a number typed by hand."""
    def rows(matrix):
        return ", ".join("(" + ", ".join(f"{v:g}" for v in row) + ")" for row in matrix)

    return {"order_queries": rows(matmul(ORDER_X, ORDER_WQ)), "order_keys": rows(matmul(ORDER_X, ORDER_WK)),
            "order_values": rows(matmul(ORDER_X, ORDER_WV)), "abc": rows(ABC),
            "abc_unscaled_row_a": rows(matmul(ABC, [[2.0, 0.0, 1.0], [0.0, 2.0, 1.0]])[:1])}

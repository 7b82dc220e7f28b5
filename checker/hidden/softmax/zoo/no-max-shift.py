"""Bug: exponentiates x without subtracting each slice's maximum, so large scores overflow to inf/inf = NaN."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x)
    total = np.sum(e, axis=axis, keepdims=True)
    # an all -inf slice has total 0: leave its weights at 0 instead of dividing 0 by 0
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)

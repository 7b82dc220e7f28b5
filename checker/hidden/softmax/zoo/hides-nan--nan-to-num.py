"""Bug: np.nan_to_num turns every NaN into 0, hiding NaN inputs along with the all -inf case."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    w = e / np.sum(e, axis=axis, keepdims=True)
    return np.nan_to_num(w)  # an all -inf slice gave 0/0 = NaN: make it 0

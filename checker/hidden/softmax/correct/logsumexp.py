"""Correct: weights as exp(log-weights), the log-sum-exp taken of the shifted slice: (x - m) - log(sum(exp(x - m)))
(the maximum is subtracted before anything is added to it, so log n survives numbers as large as 3e38)."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)  # an all -inf slice: any finite shift will do
    shifted = x - m
    # log(0) = -inf for an all -inf slice is expected, and so is -inf - (-inf) there
    with np.errstate(divide="ignore", invalid="ignore"):
        log_total = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
        # log_total is -inf only for an all -inf slice: its weights are 0 (not exp(-inf - -inf) = NaN)
        log_w = np.where(np.isneginf(log_total), -np.inf, shifted - log_total)
    return np.exp(log_w)

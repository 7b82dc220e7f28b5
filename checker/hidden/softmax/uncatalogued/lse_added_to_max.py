"""Log-sum-exp added to the maximum before the difference: x - (m + log(sum(exp(x - m)))) rounds log n away when |x| > ~1e16 ([3e38, 3e38] gives [1, 1])."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)  # an all -inf slice: any finite shift will do
    # log(0) = -inf for an all -inf slice is expected, and so is -inf - (-inf) there
    with np.errstate(divide="ignore", invalid="ignore"):
        lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
        # lse is -inf only for an all -inf slice: its weights are 0 (not exp(-inf - -inf) = NaN)
        log_w = np.where(np.isneginf(lse), -np.inf, x - lse)
    return np.exp(log_w)

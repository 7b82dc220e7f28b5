"""Bug: the scores are never scaled by 1/sqrt(d_k)."""
import numpy as np


def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    return q @ np.swapaxes(k, -1, -2)

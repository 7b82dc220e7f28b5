"""Bug: divides by d_k**-0.5, which multiplies by sqrt(d_k)."""
import numpy as np


def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    d_k = q.shape[-1]
    return q @ np.swapaxes(k, -1, -2) / d_k ** -0.5

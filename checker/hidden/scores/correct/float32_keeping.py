"""Correct: keeps float inputs' dtype (float32 stays float32), scales q before the product."""
import numpy as np


def attention_scores(q, k):
    q, k = np.asarray(q), np.asarray(k)
    dtype = np.result_type(q, k)
    if not np.issubdtype(dtype, np.floating):
        dtype = np.dtype(np.float64)
    q, k = q.astype(dtype), k.astype(dtype)
    d_k = q.shape[-1]
    q_scaled = q * dtype.type(d_k ** -0.5)
    return q_scaled @ np.swapaxes(k, -1, -2)

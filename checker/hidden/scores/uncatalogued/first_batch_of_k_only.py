"""Keeps only the first batch of a k with more leading axes than q: broadcasting lost."""
import numpy as np

def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    if k.ndim > q.ndim:
        k = k.reshape((-1,) + k.shape[-2:])[0]
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])

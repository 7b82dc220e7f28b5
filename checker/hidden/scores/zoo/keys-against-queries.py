"""Bug: computes k @ q^T, the score table transposed (rows are keys, columns queries)."""
import numpy as np


def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    d_k = q.shape[-1]
    return k @ np.swapaxes(q, -1, -2) / np.sqrt(d_k)

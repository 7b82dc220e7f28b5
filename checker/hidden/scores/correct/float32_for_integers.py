"""Correct: integer inputs become float32 (float64 is never required)."""
import numpy as np

def attention_scores(q, k):
    q, k = np.asarray(q), np.asarray(k)
    if q.dtype.kind != "f":
        q = q.astype(np.float32)
    if k.dtype.kind != "f":
        k = k.astype(np.float32)
    return np.matmul(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1]).astype(np.result_type(q, k))

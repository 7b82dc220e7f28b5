"""Bug: the output is preallocated with the inputs' dtype, so integer inputs store truncated scores."""
import numpy as np


def attention_scores(q, k):
    q, k = np.asarray(q), np.asarray(k)
    d_k = q.shape[-1]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    out = np.empty(batch + (q.shape[-2], k.shape[-2]), dtype=np.result_type(q, k))
    out[...] = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    return out

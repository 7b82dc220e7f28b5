"""Bug: scales by 1/sqrt(n_q), the number of queries, instead of 1/sqrt(d_k)."""
import numpy as np


def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    seq_len = q.shape[-2]
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(seq_len)

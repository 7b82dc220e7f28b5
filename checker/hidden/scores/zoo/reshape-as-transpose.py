"""Bug: k is reshaped to (..., d_k, n_k) instead of transposed, scrambling its entries."""
import numpy as np


def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    *batch, n_k, d_k = k.shape
    k_t = k.reshape(*batch, d_k, n_k)
    return q @ k_t / np.sqrt(d_k)

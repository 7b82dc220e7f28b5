"""Bug: k.T on a batched k reverses every axis instead of swapping the last two."""
import numpy as np


def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    d_k = q.shape[-1]
    return q @ k.T / np.sqrt(d_k)

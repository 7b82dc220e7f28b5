"""Correct: broadcast every query against every key and sum the products over d_k."""
import numpy as np


def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    d_k = q.shape[-1]
    products = q[..., :, np.newaxis, :] * k[..., np.newaxis, :, :]  # (..., n_q, n_k, d_k)
    return products.sum(axis=-1) / np.sqrt(d_k)

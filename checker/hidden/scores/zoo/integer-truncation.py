"""Bug: casts the scores back to the input dtype, so integer inputs give truncated integer scores."""
import numpy as np


def attention_scores(q, k):
    q, k = np.asarray(q), np.asarray(k)
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)
    return scores.astype(np.result_type(q, k))  # keep the caller's dtype

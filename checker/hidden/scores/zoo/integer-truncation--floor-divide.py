"""Integer inputs go through floor_divide: the scores lose their fractions."""
import numpy as np

def attention_scores(q, k):
    q = np.asarray(q)
    k = np.asarray(k)
    s = q @ np.swapaxes(k, -1, -2)
    if np.issubdtype(s.dtype, np.integer):
        return np.floor_divide(s, np.sqrt(q.shape[-1])).astype(float)
    return s / np.sqrt(q.shape[-1])

"""Correct: computes in float32 and hands back float64 for float64 input."""
import numpy as np

def attention_scores(q, k):
    q32, k32 = np.asarray(q, np.float32), np.asarray(k, np.float32)
    out = (q32 @ np.swapaxes(k32, -1, -2)) * np.float32(q32.shape[-1] ** -0.5)
    return out.astype(np.result_type(np.asarray(q).dtype, np.asarray(k).dtype, np.float64))

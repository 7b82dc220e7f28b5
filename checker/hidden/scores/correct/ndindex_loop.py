"""Loops over the broadcast leading shape with np.ndindex."""
import numpy as np

def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    qb = np.broadcast_to(q, lead + q.shape[-2:])
    kb = np.broadcast_to(k, lead + k.shape[-2:])
    out = np.empty(lead + (q.shape[-2], k.shape[-2]), dtype=np.float64)
    scale = 1.0 / np.sqrt(q.shape[-1])
    for idx in np.ndindex(*lead):
        out[idx] = np.tensordot(qb[idx], kb[idx], axes=([1], [1])) * scale
    return out

"""Correct: explicit loops over the broadcast leading dims, queries and keys."""
import math

import numpy as np


def attention_scores(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    n_q, d_k = q.shape[-2:]
    n_k = k.shape[-2]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    qb = np.broadcast_to(q, batch + (n_q, d_k))
    kb = np.broadcast_to(k, batch + (n_k, d_k))
    out = np.zeros(batch + (n_q, n_k), dtype=np.float64)
    scale = 1.0 / math.sqrt(d_k)
    for idx in np.ndindex(*batch):
        for i in range(n_q):
            for j in range(n_k):
                total = 0.0
                for c in range(d_k):
                    total += qb[idx + (i, c)] * kb[idx + (j, c)]
                out[idx + (i, j)] = total * scale
    return out

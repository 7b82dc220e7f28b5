"""Bug: the whole (n_q, n_k) score table built first, then read in tiles."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    *lead, n_q, d = q.shape
    lead = tuple(lead)
    n_k = k.shape[-2]
    # all scores once (one big matmul is faster), then the online softmax over its column blocks
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    if causal:
        scores = np.where(np.tri(n_q, n_k, n_k - n_q, dtype=bool), scores, -np.inf)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    o = np.zeros(lead + (n_q, v.shape[-1]))
    for s0 in range(0, n_k, block_size):
        s1 = min(s0 + block_size, n_k)
        s = scores[..., s0:s1]
        m_new = np.maximum(m, s.max(-1, keepdims=True))
        ref = np.where(np.isneginf(m_new), 0.0, m_new)
        corr = np.exp(m - ref)
        p = np.exp(s - ref)
        l = corr * l + p.sum(-1, keepdims=True)
        o = corr * o + p @ v[..., s0:s1, :]
        m = m_new
    return np.where(l > 0, o / np.where(l > 0, l, 1), 0.0)

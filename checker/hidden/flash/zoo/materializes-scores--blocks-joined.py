"""Bug: the scores are computed block by block, but every block is kept and joined before one softmax:
right numbers, the whole (n_q, n_k) table in memory."""

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = np.asarray(q, np.float32), np.asarray(k, np.float32), np.asarray(v, np.float32)
    n_q, d = q.shape[-2:]
    n_k = k.shape[-2]
    blocks = []
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.float32(np.sqrt(d))
        ok = np.ones((n_q, stop - start), bool)
        if causal:
            ok = np.arange(start, stop) <= np.arange(n_k - n_q, n_k)[:, None]
        if mask is not None:
            ok = ok & np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))[..., start:stop]
        blocks.append(np.where(ok, s, -np.inf))
    scores = np.concatenate(blocks, axis=-1)
    top = scores.max(-1, keepdims=True)
    e = np.exp(scores - np.where(np.isneginf(top), 0, top))
    total = e.sum(-1, keepdims=True)
    return np.divide(e @ v, total, out=np.zeros((*e.shape[:-1], v.shape[-1]), np.float32), where=total > 0)

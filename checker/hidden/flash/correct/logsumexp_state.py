"""Correct: the running state is one log-sum-exp per query (np.logaddexp) and a normalised output; a
Python loop over the blocks."""

import math

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    n_q, n_k = q.shape[-2], k.shape[-2]
    lse = np.full(q.shape[:-1], -np.inf)  # (..., n_q)
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    bool_mask = None if mask is None else np.asarray(mask, bool)
    blocks = [(s, min(s + block_size, n_k)) for s in range(0, n_k, block_size)]
    for lo, hi in blocks:
        scores = np.matmul(q, np.swapaxes(k[..., lo:hi, :], -1, -2)) / math.sqrt(q.shape[-1])
        if bool_mask is not None:
            piece = np.broadcast_to(bool_mask, bool_mask.shape[:-2] + (n_q, n_k) if bool_mask.ndim >= 2
                                    else (n_q, n_k))[..., lo:hi]
            scores = np.where(piece, scores, -np.inf)
        if causal:
            j = np.arange(lo, hi)
            i = np.arange(n_q)
            scores = np.where(j[None, :] - (n_k - n_q) <= i[:, None], scores, -np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            top = scores.max(axis=-1)
            top_safe = np.where(np.isfinite(top), top, 0.0)
            e = np.exp(scores - top_safe[..., None])
            block_lse = np.log(e.sum(axis=-1)) + top_safe  # -inf when the block shows nothing
            block_out = (e @ v[..., lo:hi, :]) / np.where(e.sum(-1) > 0, e.sum(-1), 1.0)[..., None]
            new_lse = np.logaddexp(lse, block_lse)
            w_old = np.where(np.isfinite(new_lse), np.exp(lse - np.where(np.isfinite(new_lse), new_lse, 0)), 0.0)
            w_new = np.where(np.isfinite(new_lse), np.exp(block_lse - np.where(np.isfinite(new_lse), new_lse, 0)), 0.0)
        out = w_old[..., None] * out + w_new[..., None] * block_out
        lse = new_lse
    return out

"""Kata 08: tiled attention with an online softmax (FlashAttention's idea, in PyTorch).

Plain attention builds the whole (n_q, n_k) table of scores, then its softmax: memory that grows with
n_q * n_k. FlashAttention never holds that table. It visits the keys in blocks and keeps, for each
query, three running numbers: the largest score seen so far (m), the sum of exp(score - m) so far (l)
and the weighted sum of values so far (o). At the end o / l is exactly softmax(scores) @ v, whatever
the block size.

Hint: when a block brings a larger score, the old sum and output were measured against the old max,
so both are multiplied by exp(m_old - m_new) before the block is added.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    """Attention computed block by block over the keys, with an online softmax.

    Args:
        q: queries, shape (..., n_q, d).
        k: keys, shape (..., n_k, d).
        v: values, shape (..., n_k, d_v). q, k and v share their leading dims (batch, heads);
           float32 or float64 tensors.
        block_size: keys per block (an int >= 1); the last block may be shorter.
        causal: when True, query i may see key j iff j <= n_k - n_q + i (the queries are the LAST
                n_q of the n_k positions, bottom-right as kata 03).
        mask: None, or a bool tensor broadcastable to (..., n_q, n_k) whose leading dims are among q's:
              True = may attend (a key-padding mask is (..., 1, n_k)). With causal=True both apply.

    Returns:
        (..., n_q, d_v), equal to softmax(q . k^T / sqrt(d), masked) @ v, floating point (float32
        inside is fine).
        - Keys are visited in order, in blocks of block_size, keeping per query a running max m, a
          running sum l of exp(score - m) and a running output o; when a block raises the max, l and
          o are first multiplied by exp(m_old - m_new). o is divided by l at the end.
        - Nothing of size n_q * n_k is ever built (the caller's mask aside): extra memory is
          O(n_q * (block_size + d_v) + (n_q + n_k) * d); copies or casts of the inputs are fine.
        - A block whose keys are all masked for a query changes nothing for it, even the first block
          (left padding): never -inf - (-inf) = NaN. A query with no visible key gets a zero output.
        - Any block_size >= 1 gives the same numbers (to float tolerance).
        q, k, v and mask are left unchanged.

    Example (one query, keys in blocks of 2; the max grows from 1 to 3 in the second block):
        >>> q = torch.tensor([[1.0, 0.0]]) * math.sqrt(2)  # scores are q . k / sqrt(2) = the keys' first channel
        >>> k = torch.tensor([[1.0, 0], [0, 0], [3, 0]])
        >>> v = torch.tensor([[1.0], [2.0], [3.0]])
        >>> flash_attention(q, k, v, block_size=2).round(decimals=4)
        tensor([[2.7296]])
    """
    # TODO: make q, k, v floating-point tensors (float32 inside is fine) without changing the caller's.
    # TODO: per query keep a running max m = -inf, a running sum l = 0 and a running output o = 0.
    # TODO: for each block of keys start..stop-1 (the last may be shorter): its scores q . k^T / sqrt(d),
    #       the masked ones (mask False, or after the query when causal, bottom-right) set to -inf.
    # TODO: the new max m_new; multiply l and o by exp(m - m_new), then add the block's exp(score - m_new)
    #       and exp(score - m_new) @ v. A query with no visible key yet has m_new = -inf: avoid -inf - (-inf).
    # TODO: return o / l, with a zero output where l = 0 (a query with no visible key).
    raise NotImplementedError("kata 08: write flash_attention")

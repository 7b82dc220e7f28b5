"""Kata 07: grouped-query attention (GQA).

A KV cache stores one key and one value per head and position. Grouped-query attention keeps every
query head but shares each key/value head among a group of h_q / h_kv consecutive query heads, so
the cache shrinks by that factor: h_kv = h_q is plain multi-head attention, h_kv = 1 is multi-query
attention. Query head i reads kv head i // (h_q / h_kv): heads 0 and 1 share kv head 0, heads 2 and 3
kv head 1, and so on.

Trap: repeating each kv head in place (repeat_interleave) keeps that order; tiling the kv heads (x.repeat(...))
pairs query head i with kv head i % h_kv instead, and still runs.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def repeat_kv(x, n_rep):
    """Repeat every key/value head n_rep times, each head's copies next to each other (Llama's repeat_kv).

    Args:
        x: float tensor (b, h_kv, n, d): keys or values of h_kv heads.
        n_rep: how many query heads share each kv head (h_q // h_kv), an int >= 1.

    Returns:
        Tensor (b, h_kv * n_rep, n, d) whose head j is x's head j // n_rep: each head's copies sit
        side by side (torch.repeat_interleave(x, n_rep, dim=1)), never one block of all heads after
        another. x itself is left unchanged; n_rep = 1 may return x.

    Example (one example, two kv heads of one position, repeated twice):
        >>> x = torch.tensor([[[[1.0]], [[2.0]]]])  # (1, 2, 1, 1)
        >>> repeat_kv(x, 2)[0, :, 0, 0]
        tensor([1., 1., 2., 2.])
    """
    # TODO: unpack b, h_kv, n, d.
    # TODO: repeat every head n_rep times along axis 1, its copies next to each other: (b, h_kv * n_rep, n, d).
    raise NotImplementedError("kata 07: write repeat_kv")


def grouped_query_attention(q, k, v, causal=True):
    """Attention of h_q query heads over h_kv shared key/value heads.

    Args:
        q: float tensor (b, h_q, n_q, d): queries.
        k: float tensor (b, h_kv, n_k, d): keys.
        v: float tensor (b, h_kv, n_k, d_v): values.
            h_q must be a multiple of h_kv: h_kv = h_q is multi-head attention, h_kv = 1 multi-query.
        causal: True (the default): the queries are the LAST n_q of the n_k positions (bottom-right,
            as kata 03, n_q <= n_k), so query t may see key j iff j <= n_k - n_q + t.
            False: every query sees every key.

    Returns:
        Tensor (b, h_q, n_q, d_v): query head i attends with kv head i // (h_q // h_kv), its group's,
        softmax(q_i @ k_g^T / sqrt(d)) @ v_g, as PyTorch's scaled_dot_product_attention(...,
        enable_gqa=True). Examples never mix. float32 inputs may give float32. q, k, v are left
        unchanged.

    Raises:
        ValueError: h_q % h_kv != 0, with a message of your own that names both head counts.

    Example (two query heads share one kv head of one position: each reads its value):
        >>> q, k = torch.ones(1, 2, 1, 4), torch.ones(1, 1, 1, 4)
        >>> v = torch.tensor([[[[3.0, 5.0]]]])  # (1, 1, 1, 2)
        >>> grouped_query_attention(q, k, v)[0, :, 0]
        tensor([[3., 5.],
                [3., 5.]])
    """
    # TODO: unpack b, h_q, n_q, d from q and h_kv, n_k from k; refuse h_q % h_kv != 0 (ValueError naming both).
    # TODO: give each query head its group's keys and values (repeat_kv with n_rep = h_q // h_kv): (b, h_q, n_k, d).
    # TODO: score every query against every key of its head, scaled by 1/sqrt(d): (b, h_q, n_q, n_k).
    # TODO: when causal, block the keys after each query (bottom-right) before the softmax.
    # TODO: softmax over the keys (a small helper of your own: this file stands alone), then weight the values:
    #       (b, h_q, n_q, d_v).
    raise NotImplementedError("kata 07: write grouped_query_attention")

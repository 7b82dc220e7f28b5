"""Kata 04: multi-head attention.

h heads run h small attentions side by side, each in d_head = d_model / h channels, and W_O mixes
their concatenated outputs.

Hint: in code a head is one more batch axis: split (b, n, d_model) into (b, h, n, d_head) by a
reshape THEN a transpose, attend, merge back, project.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def split_heads(x, n_heads):
    """Split the channels of every token into n_heads heads, one batch axis per head.

    Args:
        x: float tensor (b, n, d_model): b sequences of n tokens.
        n_heads: h, the number of heads; d_model must be divisible by it.

    Returns:
        Tensor (b, h, n, d_head) with d_head = d_model // h: head i of token t holds the channels
        [i*d_head, (i+1)*d_head) of that same token, x[b, t, i*d_head:(i+1)*d_head].
        x itself is left unchanged.

    Raises:
        ValueError: d_model % n_heads != 0, with a message that says so.

    Example (one sequence of 2 tokens, d_model = 4, 2 heads of 2 channels):
        >>> x = torch.arange(8.0).reshape(1, 2, 4)
        >>> split_heads(x, 2)[0]
        tensor([[[0., 1.],
                 [4., 5.]],
        
                [[2., 3.],
                 [6., 7.]]])
    """
    # TODO: unpack b, n, d_model and refuse a d_model that n_heads does not divide (ValueError).
    # TODO: give every token its heads: (b, n, h, d_head).
    # TODO: bring the heads axis before the tokens: (b, h, n, d_head).
    raise NotImplementedError("kata 04: write split_heads")


def merge_heads(x):
    """The exact inverse of split_heads: put the heads of every token side by side again.

    Args:
        x: float tensor (b, h, n, d_head).

    Returns:
        Tensor (b, n, d_model) with d_model = h * d_head: channels [i*d_head, (i+1)*d_head) of
        token t are head i's row t, x[b, i, t]. merge_heads(split_heads(x, h)) equals x.
        x itself is left unchanged.

    Example (the inverse of the split_heads example):
        >>> heads = torch.tensor([[[[0.0, 1.0], [4.0, 5.0]], [[2.0, 3.0], [6.0, 7.0]]]])
        >>> merge_heads(heads)
        tensor([[[0., 1., 2., 3.],
                 [4., 5., 6., 7.]]])
    """
    # TODO: undo split_heads step by step, in reverse order: (b, n, h, d_head), then (b, n, d_model).
    raise NotImplementedError("kata 04: write merge_heads")


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """Multi-head (self-)attention of x, with an output projection.

    Args:
        x: float tensor (b, n, d_model): b sequences of n tokens.
        w_q, w_k, w_v, w_o: float tensors (d_model, d_model), each used as x @ W (rows are inputs,
            columns outputs): q = x @ w_q, k = x @ w_k, v = x @ w_v, and w_o projects the merged heads.
        n_heads: h; d_model must be divisible by it, d_head = d_model // h.
        causal: True (the default): token i attends to tokens 0..i only (the lower triangle,
            diagonal included). False: every token attends to every token.

    Returns:
        Tensor (b, n, d_model): for each head, softmax(q_h @ k_h^T / sqrt(d_head)) @ v_h over that
        head's channels (split as split_heads does), the heads merged (merge_heads), then @ w_o.
        The inputs are left unchanged.

    Raises:
        ValueError: d_model % n_heads != 0, with a message that says so.

    Example (the A/B/C tokens, identity weights, one head: the design card's single-head worked example):
        >>> x = torch.tensor([[[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]])
        >>> eye = torch.eye(2)
        >>> multi_head_attention(x, eye, eye, eye, eye, n_heads=1).round(decimals=3)
        tensor([[[2.0000, 0.0000],
                 [0.1120, 1.8880],
                 [1.0000, 1.0000]]])
        >>> multi_head_attention(x, eye, eye, eye, eye, n_heads=1, causal=False).round(decimals=3)
        tensor([[[1.7230, 0.2770],
                 [0.2770, 1.7230],
                 [1.0000, 1.0000]]])
    """
    # TODO: project x into queries, keys and values, and split each into heads: (b, h, n, d_head).
    # TODO: score every query against every key of its head, scaled for one head: (b, h, n, n).
    # TODO: when causal, block the keys after each query before the softmax.
    # TODO: softmax over the keys (a small helper of your own: this file stands alone), weight the values,
    #       merge the heads and apply w_o: (b, n, d_model).
    raise NotImplementedError("kata 04: write multi_head_attention")

"""Kata 04: multi-head attention.

h heads run h small attentions side by side, each in d_head = d_model / h channels, and W_O mixes
their concatenated outputs.

Hint: in code a head is one more batch axis: split (b, n, d_model) into (b, h, n, d_head) by a
reshape THEN a transpose, attend, merge back, project.
"""

import numpy as np


def split_heads(x, n_heads):
    """Split the channels of every token into n_heads heads, one batch axis per head.

    Args:
        x: float array (b, n, d_model): b sequences of n tokens.
        n_heads: h, the number of heads; d_model must be divisible by it.

    Returns:
        Array (b, h, n, d_head) with d_head = d_model // h: head i of token t holds the channels
        [i*d_head, (i+1)*d_head) of that same token, x[b, t, i*d_head:(i+1)*d_head].
        x itself is left unchanged.

    Raises:
        ValueError: d_model % n_heads != 0, with a message that says so.

    Example (one sequence of 2 tokens, d_model = 4, 2 heads of 2 channels):
        >>> x = np.arange(8.0).reshape(1, 2, 4)
        >>> split_heads(x, 2)[0]
        array([[[0., 1.],
                [4., 5.]],
        <BLANKLINE>
               [[2., 3.],
                [6., 7.]]])
    """
    x = np.asarray(x)
    b, n, d_model = x.shape
    if n_heads < 1 or d_model % n_heads != 0:
        raise ValueError(f"d_model = {d_model} cannot be split into {n_heads} heads of equal size: "
                         "d_model must be divisible by n_heads")
    d_head = d_model // n_heads
    heads = x.reshape(b, n, n_heads, d_head)  # (b, n, h, d_head): still one row per token
    return heads.transpose(0, 2, 1, 3)  # (b, h, n, d_head)


def merge_heads(x):
    """The exact inverse of split_heads: put the heads of every token side by side again.

    Args:
        x: float array (b, h, n, d_head).

    Returns:
        Array (b, n, d_model) with d_model = h * d_head: channels [i*d_head, (i+1)*d_head) of
        token t are head i's row t, x[b, i, t]. merge_heads(split_heads(x, h)) equals x.
        x itself is left unchanged.

    Example (the inverse of the split_heads example):
        >>> heads = np.array([[[[0.0, 1.0], [4.0, 5.0]], [[2.0, 3.0], [6.0, 7.0]]]])
        >>> merge_heads(heads)
        array([[[0., 1., 2., 3.],
                [4., 5., 6., 7.]]])
    """
    x = np.asarray(x)
    b, h, n, d_head = x.shape
    tokens = x.transpose(0, 2, 1, 3)  # (b, n, h, d_head): back to one row per token
    return tokens.reshape(b, n, h * d_head)  # (b, n, d_model)


def _softmax(scores):
    """Softmax over the last axis (the keys); every row keeps at least its own key, so none is all -inf."""
    shifted = scores - scores.max(axis=-1, keepdims=True)  # largest exponent is 0: no overflow
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    """Multi-head (self-)attention of x, with an output projection.

    Args:
        x: float array (b, n, d_model): b sequences of n tokens.
        w_q, w_k, w_v, w_o: float arrays (d_model, d_model), each used as x @ W (rows are inputs,
            columns outputs): q = x @ w_q, k = x @ w_k, v = x @ w_v, and w_o projects the merged heads.
        n_heads: h; d_model must be divisible by it, d_head = d_model // h.
        causal: True (the default): token i attends to tokens 0..i only (the lower triangle,
            diagonal included). False: every token attends to every token.

    Returns:
        Array (b, n, d_model): for each head, softmax(q_h @ k_h^T / sqrt(d_head)) @ v_h over that
        head's channels (split as split_heads does), the heads merged (merge_heads), then @ w_o.
        The inputs are left unchanged.

    Raises:
        ValueError: d_model % n_heads != 0, with a message that says so.

    Example (the A/B/C tokens, identity weights, one head: the design card's single-head worked example):
        >>> x = np.array([[[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]])
        >>> eye = np.eye(2)
        >>> multi_head_attention(x, eye, eye, eye, eye, n_heads=1).round(3)
        array([[[2.   , 0.   ],
                [0.112, 1.888],
                [1.   , 1.   ]]])
        >>> multi_head_attention(x, eye, eye, eye, eye, n_heads=1, causal=False).round(3)
        array([[[1.723, 0.277],
                [0.277, 1.723],
                [1.   , 1.   ]]])
    """
    x = np.asarray(x)
    q = split_heads(x @ w_q, n_heads)  # (b, h, n, d_head); raises ValueError if h does not divide d_model
    b, h, n, d_head = q.shape
    k = split_heads(x @ w_k, n_heads)  # (b, h, n, d_head)
    v = split_heads(x @ w_v, n_heads)  # (b, h, n, d_head)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)  # (b, h, n, n): d_head, the size of one head's keys
    if causal:
        visible = np.tril(np.ones((n, n), dtype=bool))  # (n, n): query i sees keys 0..i
        scores = np.where(visible, scores, -np.inf)  # weight exactly 0; the diagonal keeps every row finite
    heads = _softmax(scores) @ v  # (b, h, n, d_head)
    return merge_heads(heads) @ w_o  # (b, n, d_model)

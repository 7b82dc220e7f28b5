"""Kata 11: the backward pass of attention, by hand.

Training needs the gradient of the loss with respect to q, k and v, given d_out, its gradient with
respect to the output. Write the forward pass of kata 03 as a chain of named steps, then walk the
chain backwards, each step's gradient with the shape of what it belongs to:

    forward                                   backward (d_out = dL/d out is given)
    S = q . k^T / sqrt(d)      (..., n_q, n_k)   dv = P^T . d_out                  (..., n_k, d_v)
    P = softmax(S, masked)     (..., n_q, n_k)   dP = d_out . v^T                  (..., n_q, n_k)
    out = P . v                (..., n_q, d_v)   dS = P * (dP - sum_keys(dP * P))  (..., n_q, n_k)
                                                 dq = dS . k / sqrt(d)             (..., n_q, d)
                                                 dk = dS^T . q / sqrt(d)           (..., n_k, d)

dS is the softmax's Jacobian-vector product: each row of P has an (n_k, n_k) Jacobian
diag(p) - p p^T, but its product with a row of dP is p * (dp - p . dp), one number per row and no
(n_k, n_k) tensor. Each row of dS sums to 0 (adding a constant to a row of scores changes nothing).
A blocked key has P = 0, so dS = 0 there: no gradient reaches it. A query with no visible key has a
row of zeros in P and in dS: it adds nothing to dk or dv, and its dq row is 0.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def softmax_backward(y, dy, axis=-1):
    """The gradient of a softmax's input, from its output y and the gradient dy of its output.

    Args:
        y: y = softmax(x, axis), as kata 02 returns it (a slice of all -inf inputs has y = 0);
           a float32 or float64 tensor of any shape.
        dy: the gradient of the loss with respect to y, the same shape as y.
        axis: the axis the softmax normalised; negative values count from the end.

    Returns:
        dx, the gradient with respect to x, same shape as y, floating point (float32 inside is fine):
        dx = y * (dy - sum(dy * y, axis, keepdim=True)), the Jacobian-vector product.
        - Never the Jacobian itself: no tensor of size n * n per slice (n = y.shape[axis]); the
          extra memory is O(y.size).
        - A slice where y is all zero gets dx = 0.
        y and dy are left unchanged.

    Example (the row of "shipped" in "order 4471 shipped": its weights y, and dy = its row of
    dP = d_out . v^T with d_out = ones, the sum of each value's channels):
        >>> s = torch.tensor([3.0, 1.0, 1.0]) / math.sqrt(2)  # its scaled scores against the 3 keys
        >>> y = torch.exp(s - s.max()) / torch.exp(s - s.max()).sum()
        >>> y.round(decimals=3)
        tensor([0.6730, 0.1640, 0.1640])
        >>> dx = softmax_backward(y, torch.tensor([3.0, 4.0, 2.0]))
        >>> dx.round(decimals=3) + 0.0  # (+ 0.0 shows -0.0 as 0.0)
        tensor([ 0.0000,  0.1640, -0.1640])
        >>> bool(abs(dx.sum()) < 1e-6)  # float32: torch.tensor's default  # a softmax's input gradient sums to 0 along the axis
        True
    """
    # TODO: make y and dy floating-point tensors, without changing them.
    # TODO: one number per slice: the sum along `axis` of dy * y (keep the axis, so it broadcasts back).
    # TODO: return y * (dy - that sum): the Jacobian-vector product, never the (n, n) Jacobian.
    raise NotImplementedError("kata 11: write softmax_backward")


def attention_backward(q, k, v, d_out, mask=None):
    """The gradients of kata 03's attention output with respect to q, k and v.

    Args:
        q: queries (..., n_q, d); k: keys (..., n_k, d); v: values (..., n_k, d_v). Leading dims
           (batch, heads) broadcast as in kata 03. float32 or float64 tensors.
        d_out: the gradient of the loss with respect to the output, (..., n_q, d_v): the output's shape.
        mask: None, or a bool tensor broadcastable to (..., n_q, n_k): True = may attend, applied to
              the scores before the softmax, exactly as kata 03 (a query with no visible key has zero
              weights and a zero output).

    Returns:
        (dq, dk, dv) with the shapes of q, k and v, floating point (float32 inside is fine). With P the
        weights of the forward pass (recomputing it inside is fine):
        dv = P^T . d_out, dP = d_out . v^T, dS = softmax_backward(P, dP), dq = dS . k / sqrt(d),
        dk = dS^T . q / sqrt(d).
        - An input broadcast over leading dims gets its gradient summed back to its own shape
          (k and v of shape (n_k, d) shared by every head get (n_k, d) gradients).
        - A blocked (query, key) pair passes no gradient; a query with no visible key has a zero dq row
          and adds nothing to dk or dv. Never NaN, whatever the scores (+-1e3 included).
        - Never an (n_k, n_k) Jacobian per query: the extra memory is O(n_q * n_k + the inputs).
        q, k, v, d_out and mask are left unchanged.

    Example ("order 4471 shipped" with the causal mask, as kata 03, and d_out = ones):
        >>> q = torch.tensor([[2.0, 1], [0, 1], [1, 1]])
        >>> k = torch.tensor([[2.0, 1], [0, 1], [1, 0]])
        >>> v = torch.tensor([[3.0, 0], [0, 4], [1, 1]])
        >>> causal = torch.tril(torch.ones(3, 3, dtype=torch.bool))
        >>> dq, dk, dv = attention_backward(q, k, v, torch.ones(3, 2), causal)
        >>> dv.round(decimals=3)  # each key's column sum of P, in both channels
        tensor([[2.1730, 2.1730],
                [0.6640, 0.6640],
                [0.1640, 0.1640]])
        >>> dq.round(decimals=3) + 0.0  # "order" sees only itself: its P row is (1, 0, 0), its dS row and dq 0
        tensor([[ 0.0000,  0.0000],
                [-0.3540,  0.0000],
                [-0.1160,  0.1160]])
        >>> dk.round(decimals=3) + 0.0
        tensor([[ 0.0000, -0.1770],
                [ 0.1160,  0.2920],
                [-0.1160, -0.1160]])
    """
    # TODO: make q, k, v and d_out floating-point tensors, without changing them.
    # TODO: recompute the forward pass as kata 03: S = q . k^T / sqrt(d), blocked scores -inf, P = softmax.
    # TODO: a query with no visible key gets zero weights P, never NaN.
    # TODO: dv = P^T . d_out, dP = d_out . v^T, dS = softmax_backward(P, dP).
    # TODO: dq = dS . k / sqrt(d) and dk = dS^T . q / sqrt(d): transpose only the last two axes.
    # TODO: sum each gradient back to its input's shape where broadcasting stretched the input, and return (dq, dk, dv).
    raise NotImplementedError("kata 11: write attention_backward")

"""Bug full-row-nan in float32: the softmax divides by max(total, 1e-300), a floor that is 0 in float32, so a
query with no visible key gets 0 / 0 = NaN (float64 is right)."""

import numpy as np


def softmax_backward(y, dy, axis=-1):
    """The gradient of a softmax's input, from its output y and the gradient dy of its output.

    Args:
        y: y = softmax(x, axis), as kata 02 returns it (a slice of all -inf inputs has y = 0);
           a float32 or float64 array of any shape.
        dy: the gradient of the loss with respect to y, the same shape as y.
        axis: the axis the softmax normalised; negative values count from the end.

    Returns:
        dx, the gradient with respect to x, same shape as y, floating point (float32 inside is fine):
        dx = y * (dy - sum(dy * y, axis, keepdims=True)), the Jacobian-vector product.
        - Never the Jacobian itself: no array of size n * n per slice (n = y.shape[axis]); the
          extra memory is O(y.size).
        - A slice where y is all zero gets dx = 0.
        y and dy are left unchanged.

    Example (the row of "shipped" in "order 4471 shipped": its weights y, and dy = its row of
    dP = d_out . v^T with d_out = ones, the sum of each value's channels):
        >>> s = np.array([3.0, 1.0, 1.0]) / np.sqrt(2)  # its scaled scores against the 3 keys
        >>> y = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        >>> y.round(3)
        array([0.673, 0.164, 0.164])
        >>> dx = softmax_backward(y, np.array([3.0, 4.0, 2.0]))
        >>> dx.round(3) + 0.0  # (+ 0.0 shows -0.0 as 0.0)
        array([ 0.   ,  0.164, -0.164])
        >>> bool(abs(dx.sum()) < 1e-12)  # a softmax's input gradient sums to 0 along the axis
        True
    """
    y, dy = np.asarray(y), np.asarray(dy)
    dtype = np.result_type(y, dy, np.float32)
    y, dy = y.astype(dtype, copy=False), dy.astype(dtype, copy=False)  # never written to
    inner = np.sum(dy * y, axis=axis, keepdims=True)  # (..., 1, ...): p . dp, one number per slice
    return y * (dy - inner)  # same shape as y


def _softmax_keys(scores):
    """Softmax over the last axis (the keys); a row of only -inf gives zeros, not NaN."""
    peak = np.max(scores, axis=-1, keepdims=True)
    peak = np.where(np.isneginf(peak), 0, peak)  # a query with no visible key: exp gives zeros
    e = np.exp(scores - peak)
    total = np.sum(e, axis=-1, keepdims=True)
    return e / np.maximum(total, 1e-300)  # a floor: never 0 / 0


def _sum_to(grad, shape):
    """`grad` summed back to an input's `shape`: over the leading axes broadcasting added, and over the
    axes where the input had size 1 and broadcasting stretched it."""
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def attention_backward(q, k, v, d_out, mask=None):
    """The gradients of kata 03's attention output with respect to q, k and v.

    Args:
        q: queries (..., n_q, d); k: keys (..., n_k, d); v: values (..., n_k, d_v). Leading dims
           (batch, heads) broadcast as in kata 03. float32 or float64 arrays.
        d_out: the gradient of the loss with respect to the output, (..., n_q, d_v): the output's shape.
        mask: None, or a bool array broadcastable to (..., n_q, n_k): True = may attend, applied to
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
        >>> q = np.array([[2.0, 1], [0, 1], [1, 1]])
        >>> k = np.array([[2.0, 1], [0, 1], [1, 0]])
        >>> v = np.array([[3.0, 0], [0, 4], [1, 1]])
        >>> causal = np.tril(np.ones((3, 3), bool))
        >>> dq, dk, dv = attention_backward(q, k, v, np.ones((3, 2)), causal)
        >>> dv.round(3)  # each key's column sum of P, in both channels
        array([[2.173, 2.173],
               [0.664, 0.664],
               [0.164, 0.164]])
        >>> dq.round(3) + 0.0  # "order" sees only itself: its P row is (1, 0, 0), its dS row and dq 0
        array([[ 0.   ,  0.   ],
               [-0.354,  0.   ],
               [-0.116,  0.116]])
        >>> dk.round(3) + 0.0
        array([[ 0.   , -0.177],
               [ 0.116,  0.292],
               [-0.116, -0.116]])
    """
    q, k, v, d_out = (np.asarray(x) for x in (q, k, v, d_out))
    dtype = np.result_type(q, k, v, d_out, np.float32)
    q, k, v, d_out = (x.astype(dtype, copy=False) for x in (q, k, v, d_out))  # never written to
    scale = dtype.type(1 / np.sqrt(q.shape[-1]))
    scores = q @ np.swapaxes(k, -1, -2) * scale  # S (..., n_q, n_k)
    if mask is not None:
        scores = np.where(np.asarray(mask, bool), scores, -np.inf)  # blocked before the softmax
    p = _softmax_keys(scores)  # P (..., n_q, n_k): recomputed, never stored by a forward pass
    dv = np.swapaxes(p, -1, -2) @ d_out  # (..., n_k, d_v)
    dp = d_out @ np.swapaxes(v, -1, -2)  # (..., n_q, n_k)
    ds = softmax_backward(p, dp)  # (..., n_q, n_k): zero at blocked keys and for empty queries
    dq = ds @ k * scale  # (..., n_q, d)
    dk = np.swapaxes(ds, -1, -2) @ q * scale  # (..., n_k, d)
    return _sum_to(dq, q.shape), _sum_to(dk, k.shape), _sum_to(dv, v.shape)

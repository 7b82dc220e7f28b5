"""Kata 05: KV-cache decode.

A causal model never lets a token see later tokens, so the keys and values of past tokens never
change once computed. A decode step therefore needs only the new token's query against every cached
key: n scores per head, not an n x n table. The cache keeps each position's key and value as it
arrived; a call projects only its new tokens, appends their keys and values, and lines its queries up
with the END of the cache (bottom-right causal mask).

The helpers softmax, split_heads and merge_heads are given and work: the kata is about the cache.
"""

import numpy as np


def softmax(scores):
    """Softmax over the last axis (the keys). Given: every row keeps at least one visible key.

    Args:
        scores: float array (..., n_q, n_k); blocked keys hold -inf.

    Returns:
        Array of the same shape: each row is >= 0 and sums to 1; -inf gets weight exactly 0.
    """
    shifted = scores - scores.max(axis=-1, keepdims=True)  # largest exponent is 0: no overflow
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def split_heads(x, n_heads):
    """(b, t, d_model) -> (b, h, t, d_head): head i owns the channels [i*d_head, (i+1)*d_head). Given.

    Args:
        x: float array (b, t, d_model).
        n_heads: h; d_model must be divisible by it.

    Returns:
        Array (b, h, t, d_head) with d_head = d_model // h.
    """
    b, t, d_model = x.shape
    return x.reshape(b, n_heads, t, d_model // n_heads)  # (b, h, t, d_head)


def merge_heads(x):
    """(b, h, t, d_head) -> (b, t, d_model): the exact inverse of split_heads. Given.

    Args:
        x: float array (b, h, t, d_head).

    Returns:
        Array (b, t, h * d_head).
    """
    b, h, t, d_head = x.shape
    tokens = x.transpose(0, 2, 1, 3)  # (b, t, h, d_head)
    return tokens.reshape(b, t, h * d_head)  # (b, t, d_model)


class KVCache:
    """The keys and values of every position seen so far, for one sequence (one batch of them).

    KVCache() starts empty. len(cache) is the number of cached positions n. Two caches never share
    state: each KVCache() owns its own storage.

    Example:
        >>> cache = KVCache()
        >>> len(cache)
        0
        >>> k_all, v_all = cache.append(np.zeros((1, 2, 3, 4)), np.ones((1, 2, 3, 4)))
        >>> k_all.shape, len(cache)
        ((1, 2, 3, 4), 3)
        >>> k_all, v_all = cache.append(np.zeros((1, 2, 1, 4)), np.ones((1, 2, 1, 4)))
        >>> v_all.shape, len(cache)
        ((1, 2, 4, 4), 4)
    """

    def __init__(self):
        self.k = None  # (b, h, n, d_head) once something is appended
        self.v = None

    def __len__(self):
        return 0 if self.k is None else self.k.shape[2]

    def append(self, k, v):
        """Add the keys and values of t new positions after the cached ones.

        Args:
            k, v: float arrays (b, h, t, d_head): the new positions' keys and values, t >= 1.

        Returns:
            (k_all, v_all): every cached key and value, old positions first, each (b, h, n, d_head)
            with n = len(cache) after the call. k and v themselves are left unchanged.
        """
        if self.k is None:
            self.k, self.v = np.array(k), np.array(v)  # copies: the cache owns its storage
        else:
            self.k = np.concatenate([self.k, k], axis=2)  # (b, h, n, d_head): along positions
            self.v = np.concatenate([self.v, v], axis=2)  # (b, h, n, d_head)
        return self.k, self.v


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    """Causal multi-head attention for t new tokens, reusing the keys and values in `cache`.

    Args:
        x: float array (b, t, d_model): the t >= 1 NEW tokens only (t > 1: a prefill or a chunk;
            t = 1: one decode step). The cache holds the positions before them.
        cache: a KVCache for this sequence; the call appends the new tokens' keys and values to it.
        w_q, w_k, w_v, w_o: float arrays (d_model, d_model), each used as x @ W (rows are inputs,
            columns outputs), as in kata 04.
        n_heads: h; d_head = d_model // h.

    Returns:
        Array (b, t, d_model): row i is new token i's output. With n = len(cache) after the call, new
        query i sits at position n - t + i and sees cached positions j <= n - t + i (the causal mask
        lined up with the END of the cache, bottom-right). Scores are scaled by 1/sqrt(d_head), the
        heads merged, then @ w_o. The inputs are left unchanged.

        Only the new tokens are projected: past positions' keys and values are read from the cache as
        they were appended, never recomputed (the weights of this call apply to the new tokens only).
        A call costs O(t*n*d_model + t*d_model^2); a decode step never builds an n x n table.
        For any split of a sequence into chunks, the outputs concatenated equal kata 04's
        multi_head_attention(sequence, w_q, w_k, w_v, w_o, n_heads, causal=True).

    Example (the A/B/C tokens, identity weights, one head: a prefill of two tokens, then one step):
        >>> x = np.array([[[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]])
        >>> eye = np.eye(2)
        >>> cache = KVCache()
        >>> cached_attention(x[:, :2], cache, eye, eye, eye, eye, n_heads=1).round(3)
        array([[[2.   , 0.   ],
                [0.112, 1.888]]])
        >>> cached_attention(x[:, 2:], cache, eye, eye, eye, eye, n_heads=1).round(3), len(cache)
        (array([[[1., 1.]]]), 3)
    """
    x = np.asarray(x)
    b, t, d_model = x.shape
    d_head = d_model // n_heads
    q = split_heads(x @ w_q, n_heads)  # (b, h, t, d_head): the new tokens only
    k_all, v_all = cache.append(split_heads(x @ w_k, n_heads),  # (b, h, t, d_head) appended first,
                                split_heads(x @ w_v, n_heads))  # so each new token sees itself
    n = k_all.shape[2]
    scores = q @ np.swapaxes(k_all, -1, -2) / np.sqrt(d_head)  # (b, h, t, n): t rows, never n x n
    visible = np.arange(n) <= np.arange(n - t, n)[:, None]  # (t, n): query i is position n - t + i
    scores = np.where(visible, scores, -np.inf)  # weight exactly 0; each row sees at least itself
    heads = softmax(scores) @ v_all  # (b, h, t, d_head)
    return merge_heads(heads) @ w_o  # (b, t, d_model)

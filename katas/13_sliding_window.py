"""Kata 13: sliding-window attention with a rolling KV cache.

Mistral 7B, Gemma 2/3 and Longformer's local band let a query see only the last `window` positions,
its own included: the query at absolute position p sees the keys at p - window + 1 ... p, never a later
one. Such a model never needs a key older than `window` positions again, so its decode cache is a ring
buffer of `window` slots: memory O(window) however long the sequence grows, where a full KV cache grows
with every token. The band is aligned bottom-right, as a causal mask over a cache is: with n_q queries over
n_k keys, query i sits at position n_k - n_q + i.

Trap: a chunk longer than one token has early queries that need keys the cache is about to drop, so
attend first (over the kept keys and the new ones), then append.
"""

import numpy as np


def sliding_window_mask(n_q, n_k, window):
    """The sliding-window band of n_q queries over n_k keys, aligned bottom-right.

    Args:
        n_q: number of queries, n_q <= n_k (else ValueError).
        n_k: number of keys; key j sits at position j.
        window: int >= 1, the positions a query sees, its own included.

    Returns:
        Bool array (n_q, n_k), True = may attend. Query i sits at position p = n_k - n_q + i and may
        see key j iff 0 <= p - j < window: itself and the window - 1 positions before it, never a later
        one. window >= n_k gives the causal mask (bottom-right).

    Example:
        >>> sliding_window_mask(4, 4, 2)
        array([[ True, False, False, False],
               [ True,  True, False, False],
               [False,  True,  True, False],
               [False, False,  True,  True]])
        >>> sliding_window_mask(2, 5, 3)  # the 2 queries are positions 3 and 4 of 5
        array([[False,  True,  True,  True, False],
               [False, False,  True,  True,  True]])
    """
    # TODO: refuse n_q > n_k with a ValueError that says why (the queries are the last n_q of n_k positions).
    # TODO: query i sits at position n_k - n_q + i; key j at position j. Allowed iff 0 <= position - j < window:
    #       a (n_q, n_k) table of lags, then two comparisons.
    raise NotImplementedError("kata 13: write sliding_window_mask")


class RollingKVCache:
    """The decode cache of a sliding-window model: the keys and values of the last `window` positions.

    RollingKVCache(window) starts empty. cache.append(k, v) adds t >= 1 new positions; len(cache) counts
    every position ever appended (the absolute position of the next token), however many were dropped;
    cache.kept() returns the last min(len, window) of them. Storage never holds more than `window`
    positions: a ring buffer of `window` slots, written at position % window, so memory is O(window)
    whatever len grows to and an append never copies the whole history. Two caches never share state.

    Example (window 2, one example, one head, one channel: position p holds key p and value 10 p):
        >>> cache = RollingKVCache(2)
        >>> for p in range(5):
        ...     cache.append(np.full((1, 1, 1, 1), float(p)), np.full((1, 1, 1, 1), 10.0 * p))
        >>> len(cache)
        5
        >>> k, v = cache.kept()
        >>> k.ravel(), v.ravel()  # positions 3 and 4, oldest first
        (array([3., 4.]), array([30., 40.]))
    """

    def __init__(self, window):
        # TODO: keep the window, count the positions ever appended, and make room for at most `window`
        #       positions (on self: two caches never share state).
        raise NotImplementedError("kata 13: write RollingKVCache.__init__")

    def __len__(self):
        # TODO: every position ever appended, not only the kept ones.
        raise NotImplementedError("kata 13: write RollingKVCache.__len__")

    def append(self, k, v):
        """Add t new positions after the cached ones; the oldest beyond `window` are dropped.

        Args:
            k: float array (b, h, t, d), t >= 1: the new positions' keys.
            v: float array (b, h, t, d_v): their values. b, h, d and d_v are fixed by the first
                append; later ones that disagree raise ValueError. k and v are left unchanged.

        Returns:
            None. Costs O(t * window) at most (a chunk longer than the window keeps its last window).
        """
        # TODO: on the first append, make (b, h, window, d) and (b, h, window, d_v) buffers; later, a k or v
        #       whose b, h, d or d_v differ is a ValueError.
        # TODO: write the new positions (only the last `window` of a long chunk) at slot position % window,
        #       never a copy of the whole history, and count them.
        raise NotImplementedError("kata 13: write RollingKVCache.append")

    def kept(self):
        """The kept keys and values, oldest first, as new arrays.

        Returns:
            (k, v): (b, h, m, d) and (b, h, m, d_v) with m = min(len(cache), window): positions
            len - m ... len - 1 in order (the ring buffer unrolled). Only called after an append
            (before it, b, h and d are unknown).
        """
        # TODO: the last min(len, window) positions, OLDEST first (unroll the ring), as new arrays.
        raise NotImplementedError("kata 13: write RollingKVCache.kept")


def window_attention(q, k, v, cache, window):
    """Sliding-window attention for t new tokens, with the past read from a RollingKVCache.

    Args:
        q, k: float arrays (b, h, t, d): the new tokens' queries and keys, at positions n ... n + t - 1
            where n = len(cache) before the call (t > 1: a prefill or a chunk; t = 1: a decode step).
        v: float array (b, h, t, d_v): their values.
        cache: the RollingKVCache(window) of this sequence (never None).
        window: int >= 1, the same as the cache's.

    Returns:
        Array (b, h, t, d_v). Each new query attends to the kept keys and the new ones with the window
        rule (query at position p sees keys at p - window + 1 ... p): scores q . k / sqrt(d), softmax
        over the visible keys, weights times values. THEN the new keys and values are appended, so a
        chunk longer than the window is right too (its early queries need keys the cache drops).
        The cache ends with len + t positions; the inputs are left unchanged. For every chunking of a
        sequence, the outputs joined equal full attention over it under sliding_window_mask.

    Example (window 2, one head, d = 1: keys 0, 1, 2 at positions 0-2, values 0, 10, 20):
        >>> cache = RollingKVCache(2)
        >>> q = np.ones((1, 1, 3, 1))
        >>> k = np.arange(3.0).reshape(1, 1, 3, 1)
        >>> v = 10 * k
        >>> window_attention(q[:, :, :2], k[:, :, :2], v[:, :, :2], cache, 2).ravel().round(3)
        array([0.   , 7.311])
        >>> window_attention(q[:, :, 2:], k[:, :, 2:], v[:, :, 2:], cache, 2).ravel().round(3), len(cache)
        (array([17.311]), 3)
    """
    # TODO: the keys a new query may see: the kept ones (positions len - m ... len - 1), then the new ones.
    # TODO: score q against them, / sqrt(d): (b, h, t, m + t); block what the band forbids (bottom-right:
    #       the keys are contiguous positions, so sliding_window_mask(t, m + t, window) is the band).
    # TODO: softmax over the keys (shift by each row's max), weights @ values: (b, h, t, d_v).
    # TODO: only THEN append k and v to the cache (a long chunk's early queries need what it drops).
    raise NotImplementedError("kata 13: write window_attention")

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
    if n_q > n_k:
        raise ValueError(f"sliding_window_mask: n_q = {n_q} queries but only n_k = {n_k} keys; the queries are "
                         "the last n_q of the n_k positions, so n_q <= n_k")
    lag = np.arange(n_k - n_q, n_k)[:, None] - np.arange(n_k)[None, :]  # (n_q, n_k): query position - key position
    return (lag >= 0) & (lag < window)


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
        self.window = int(window)
        self.k = self.v = None  # (b, h, window, d) ring buffers, made at the first append
        self.n = 0  # positions ever appended

    def __len__(self):
        return self.n

    def append(self, k, v):
        """Add t new positions after the cached ones; the oldest beyond `window` are dropped.

        Args:
            k: float array (b, h, t, d), t >= 1: the new positions' keys.
            v: float array (b, h, t, d_v): their values. b, h, d and d_v are fixed by the first
                append; later ones that disagree raise ValueError. k and v are left unchanged.

        Returns:
            None. Costs O(t * window) at most (a chunk longer than the window keeps its last window).
        """
        k, v = np.asarray(k), np.asarray(v)
        if k.ndim != 4 or v.ndim != 4 or k.shape[:3] != v.shape[:3]:
            raise ValueError(f"append: k {k.shape} and v {v.shape} must be (b, h, t, d) and (b, h, t, d_v)")
        b, h, t, d = k.shape
        if self.k is None:
            self.k = np.zeros((b, h, self.window, d), np.result_type(k, np.float32))  # (b, h, window, d)
            self.v = np.zeros((b, h, self.window, v.shape[3]), np.result_type(v, np.float32))  # (b, h, window, d_v)
        elif (b, h, d, v.shape[3]) != (*self.k.shape[:2], self.k.shape[3], self.v.shape[3]):
            raise ValueError(f"append: k {k.shape} and v {v.shape} do not match the cache's (b, h, ·, d) = "
                             f"{self.k.shape[:2]} and d = {self.k.shape[3]}, d_v = {self.v.shape[3]}")
        keep = min(t, self.window)  # only the chunk's last `window` positions can ever be seen again
        slots = np.arange(self.n + t - keep, self.n + t) % self.window  # (keep,): each position's slot
        self.k[:, :, slots] = k[:, :, t - keep:]
        self.v[:, :, slots] = v[:, :, t - keep:]
        self.n += t

    def kept(self):
        """The kept keys and values, oldest first, as new arrays.

        Returns:
            (k, v): (b, h, m, d) and (b, h, m, d_v) with m = min(len(cache), window): positions
            len - m ... len - 1 in order (the ring buffer unrolled). Only called after an append
            (before it, b, h and d are unknown).
        """
        m = min(self.n, self.window)
        slots = np.arange(self.n - m, self.n) % self.window  # (m,): oldest position first
        return self.k[:, :, slots], self.v[:, :, slots]  # fancy indexing copies: (b, h, m, d), (b, h, m, d_v)


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
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    t, d = q.shape[2], q.shape[3]
    n = len(cache)
    if n:
        past_k, past_v = cache.kept()  # (b, h, m, d), (b, h, m, d_v): positions n - m ... n - 1
        keys = np.concatenate([past_k, k], axis=2)  # (b, h, m + t, d)
        values = np.concatenate([past_v, v], axis=2)  # (b, h, m + t, d_v)
    else:
        keys, values = k, v
    visible = sliding_window_mask(t, keys.shape[2], window)  # (t, m + t): the keys are contiguous positions
    scores = q @ np.swapaxes(keys, -1, -2) / np.sqrt(d)  # (b, h, t, m + t)
    scores = np.where(visible, scores, -np.inf)  # each query sees at least itself
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    attended = weights @ values  # (b, h, t, d_v)
    cache.append(k, v)  # after attending: a long chunk's early queries needed the keys this drops
    return attended

"""Kata 10: debug the decoder.

This file is a complete KV-cache decoder in the style of katas 03-05: a softmax, a causal mask, the
head split and merge, a cache, and cached attention. It reads well and it runs, but bugs were planted
in it: each one a mistake from the catalogue of katas 02-05, written the way people really write it.
Find them and fix them. `kata check 10` says how many planted bugs remain, never which; `kata hint 10`
narrows it down one level at a time.

When every bug is fixed, the file meets kata 05's contract: for any split of a sequence into chunks,
the outputs of cached_attention, joined, equal kata 04's multi_head_attention(sequence, ...,
causal=True). Keep the names and signatures: the checker calls them.
"""

import numpy as np


def softmax(scores):
    """Softmax over the last axis (the keys).

    Args:
        scores: float array (..., n_q, n_k); blocked keys hold -inf, every row keeps a visible key.

    Returns:
        Array of the same shape: each row is >= 0 and sums to 1; -inf gets weight exactly 0.
    """
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)  # (..., n_q, n_k)


def causal_mask(n_q, n_k):
    """bool (n_q, n_k), True = may attend: the queries are the LAST n_q of n_k positions.

    Query i sits at position n_k - n_q + i and sees keys j <= n_k - n_q + i (bottom-right).
    """
    return np.tril(np.ones((n_q, n_k), dtype=bool))  # (n_q, n_k)


def split_heads(x, n_heads):
    """(b, t, d_model) -> (b, h, t, d_head): head i owns the channels [i*d_head, (i+1)*d_head)."""
    b, t, d_model = x.shape
    heads = x.reshape(b, t, n_heads, d_model // n_heads)  # (b, t, h, d_head)
    return heads.transpose(0, 2, 1, 3)  # (b, h, t, d_head)


def merge_heads(x):
    """(b, h, t, d_head) -> (b, t, h * d_head): the exact inverse of split_heads."""
    b, h, t, d_head = x.shape
    return x.reshape(b, t, h * d_head)  # (b, t, d_model)


class KVCache:
    """The keys and values of every position seen so far.

    KVCache() starts empty; len(cache) is the number of cached positions; each cache owns its storage.
    """

    def __init__(self):
        self.keys, self.values = [], []  # one (b, h, t, d_head) chunk per append

    def __len__(self):
        return sum(chunk.shape[2] for chunk in self.keys)

    def append(self, k, v):
        """Add t new positions' keys and values, (b, h, t, d_head) each; return every cached key and
        value, (b, h, n, d_head) each, old positions first."""
        self.keys.append(k)
        self.values.append(v)
        return np.concatenate(self.keys, axis=2), np.concatenate(self.values, axis=2)  # (b, h, n, d_head)


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    """Causal multi-head attention for t new tokens, reusing the keys and values in `cache`.

    Args:
        x: float array (b, t, d_model): the t >= 1 new tokens only.
        cache: the sequence's KVCache; the call appends the new tokens' keys and values.
        w_q, w_k, w_v, w_o: float arrays (d_model, d_model), each used as x @ W.
        n_heads: h; d_head = d_model // h.

    Returns:
        Array (b, t, d_model). New query i sits at position n - t + i (n = len(cache) after the call)
        and sees every cached position up to its own. Scores are scaled by 1/sqrt(d_head).

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
    b, t, d_model = x.shape
    d_head = d_model // n_heads
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))  # (b, h, t, d_head) each
    k_all, v_all = cache.append(k, v)  # (b, h, n, d_head): the new positions included
    n = len(cache)
    scores = q @ k_all.swapaxes(-1, -2)  # (b, h, t, n)
    scores = np.where(causal_mask(t, n), scores, -np.inf)  # (b, h, t, n): the future is blocked
    weights = softmax(scores)  # (b, h, t, n)
    out = merge_heads(weights @ v_all)  # (b, t, d_model)
    return out @ w_o  # (b, t, d_model)

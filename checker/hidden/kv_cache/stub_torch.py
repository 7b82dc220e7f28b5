"""Kata 05: KV-cache decode.

A causal model never lets a token see later tokens, so the keys and values of past tokens never
change once computed. A decode step therefore needs only the new token's query against every cached
key: n scores per head, not an n x n table. The cache keeps each position's key and value as it
arrived; a call projects only its new tokens, appends their keys and values, and lines its queries up
with the END of the cache (bottom-right causal mask).

The helpers softmax, split_heads and merge_heads are given and work: the kata is about the cache.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def softmax(scores):
    """Softmax over the last axis (the keys). Given: every row keeps at least one visible key.

    Args:
        scores: float tensor (..., n_q, n_k); blocked keys hold -inf.

    Returns:
        Tensor of the same shape: each row is >= 0 and sums to 1; -inf gets weight exactly 0.
    """
    shifted = scores - scores.amax(dim=-1, keepdim=True)  # largest exponent is 0: no overflow
    e = torch.exp(shifted)
    return e / e.sum(dim=-1, keepdim=True)


def split_heads(x, n_heads):
    """(b, t, d_model) -> (b, h, t, d_head): head i owns the channels [i*d_head, (i+1)*d_head). Given.

    Args:
        x: float tensor (b, t, d_model).
        n_heads: h; d_model must be divisible by it.

    Returns:
        Tensor (b, h, t, d_head) with d_head = d_model // h.
    """
    b, t, d_model = x.shape
    heads = x.reshape(b, t, n_heads, d_model // n_heads)  # (b, t, h, d_head): still one row per token
    return heads.permute(0, 2, 1, 3)  # (b, h, t, d_head)


def merge_heads(x):
    """(b, h, t, d_head) -> (b, t, d_model): the exact inverse of split_heads. Given.

    Args:
        x: float tensor (b, h, t, d_head).

    Returns:
        Tensor (b, t, h * d_head).
    """
    b, h, t, d_head = x.shape
    tokens = x.permute(0, 2, 1, 3)  # (b, t, h, d_head)
    return tokens.reshape(b, t, h * d_head)  # (b, t, d_model)


class KVCache:
    """The keys and values of every position seen so far, for one sequence (one batch of them).

    KVCache() starts empty. len(cache) is the number of cached positions n. Two caches never share
    state: each KVCache() owns its own storage.

    Example:
        >>> cache = KVCache()
        >>> len(cache)
        0
        >>> k_all, v_all = cache.append(torch.zeros((1, 2, 3, 4)), torch.ones(1, 2, 3, 4))
        >>> k_all.shape, len(cache)
        (torch.Size([1, 2, 3, 4]), 3)
        >>> k_all, v_all = cache.append(torch.zeros((1, 2, 1, 4)), torch.ones(1, 2, 1, 4))
        >>> v_all.shape, len(cache)
        (torch.Size([1, 2, 4, 4]), 4)
    """

    def __init__(self):
        # TODO: start empty, with storage that belongs to this cache alone (never a class attribute or a
        #       mutable default: two caches never share state).
        raise NotImplementedError("kata 05: write KVCache.__init__")

    def __len__(self):
        # TODO: the number of cached positions n (0 when empty).
        raise NotImplementedError("kata 05: write KVCache.__len__")

    def append(self, k, v):
        """Add the keys and values of t new positions after the cached ones.

        Args:
            k, v: float tensors (b, h, t, d_head): the new positions' keys and values, t >= 1.

        Returns:
            (k_all, v_all): every cached key and value, old positions first, each (b, h, n, d_head)
            with n = len(cache) after the call. k and v themselves are left unchanged.
        """
        # TODO: add k and v after what is cached, along the positions axis (axis 2 of (b, h, n, d_head)),
        #       keeping every earlier position.
        # TODO: return every cached key and value: (b, h, n, d_head) each.
        raise NotImplementedError("kata 05: write KVCache.append")


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    """Causal multi-head attention for t new tokens, reusing the keys and values in `cache`.

    Args:
        x: float tensor (b, t, d_model): the t >= 1 NEW tokens only (t > 1: a prefill or a chunk;
            t = 1: one decode step). The cache holds the positions before them.
        cache: a KVCache for this sequence; the call appends the new tokens' keys and values to it.
        w_q, w_k, w_v, w_o: float tensors (d_model, d_model), each used as x @ W (rows are inputs,
            columns outputs), as in kata 04.
        n_heads: h; d_head = d_model // h.

    Returns:
        Tensor (b, t, d_model): row i is new token i's output. With n = len(cache) after the call, new
        query i sits at position n - t + i and sees cached positions j <= n - t + i (the causal mask
        lined up with the END of the cache, bottom-right). Scores are scaled by 1/sqrt(d_head), the
        heads merged, then @ w_o. The inputs are left unchanged.

        Only the new tokens are projected: past positions' keys and values are read from the cache as
        they were appended, never recomputed (the weights of this call apply to the new tokens only).
        A call costs O(t*n*d_model + t*d_model^2); a decode step never builds an n x n table.
        For any split of a sequence into chunks, the outputs concatenated equal kata 04's
        multi_head_attention(sequence, w_q, w_k, w_v, w_o, n_heads, causal=True).

    Example (the A/B/C tokens, identity weights, one head: a prefill of two tokens, then one step):
        >>> x = torch.tensor([[[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]])
        >>> eye = torch.eye(2)
        >>> cache = KVCache()
        >>> cached_attention(x[:, :2], cache, eye, eye, eye, eye, n_heads=1).round(decimals=3)
        tensor([[[2.0000, 0.0000],
                 [0.1120, 1.8880]]])
        >>> cached_attention(x[:, 2:], cache, eye, eye, eye, eye, n_heads=1).round(decimals=3), len(cache)
        (tensor([[[1., 1.]]]), 3)
    """
    # TODO: project ONLY the new tokens into queries, keys and values and split them into heads: (b, h, t, d_head).
    # TODO: append the new keys and values to the cache first, so each new token sees itself: (b, h, n, d_head).
    # TODO: score the t new queries against all n cached keys, scaled by sqrt(d_head): (b, h, t, n), never (n, n).
    # TODO: block the future: new query i is position n - t + i and sees keys j <= n - t + i (bottom-right).
    # TODO: softmax over the keys, weight the values, merge the heads and apply w_o: (b, t, d_model).
    raise NotImplementedError("kata 05: write cached_attention")

"""Kata 09: sampling the next token (temperature, top-k, top-p, an inverse-CDF draw).

A language model's last layer gives one logit per vocabulary token. Decoding turns them into a
distribution and draws from it: divide by the temperature, keep the top-k logits, softmax, keep the
nucleus (top-p), renormalise, then pick the token whose slice of the cumulative sum holds a uniform u.
The draw is given u, so every result is exact and testable without randomness.

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """The distribution of the next token, as Hugging Face `generate` builds it for sampling.

    Args:
        logits: (..., V) float32 or float64 scores, one per vocabulary token; any leading dims.
        temperature: a float >= 0. 0 means greedy: one-hot at the argmax (the lowest index on ties).
        top_k: None or 0 keeps every token; else keep the top_k highest logits, and every logit tied
            with the k-th highest as well (top_k >= V keeps every token).
        top_p: None or 1.0 keeps every token; else, in (0, 1), keep the smallest set of most probable
            tokens whose probabilities sum to >= top_p (the token that crosses top_p is kept, and at
            least one token always is). Precisely: sort the probabilities descending, ties by lower
            index first (a stable sort); keep a token iff the sum of the probabilities sorted before it
            is < top_p.

    Returns:
        Probabilities (..., V), a float tensor, in this order: divide the logits by the temperature; keep
        the top_k highest logits; softmax over the kept ones; keep the top_p nucleus of that softmax;
        renormalise so each row sums to 1. Removed tokens get exactly 0. Stable for logits of +-1e4.
        logits itself is left unchanged.

    Example (logits log 0.5, log 0.25, log 0.125, log 0.125; the first two sum to 0.75 >= 0.7):
        >>> next_token_probs(torch.tensor([0.5, 0.25, 0.125, 0.125]).log(), top_p=0.7).round(decimals=4)
        tensor([0.6667, 0.3333, 0.0000, 0.0000], dtype=torch.float64)
    """
    # TODO: temperature 0 is greedy: a one-hot row at the argmax (lowest index on ties).
    # TODO: divide by the temperature, keep the top_k highest logits (ties at the k-th kept), softmax.
    # TODO: keep the top_p nucleus (most probable first, the crossing token kept), renormalise.
    raise NotImplementedError("kata 09: write next_token_probs")


def sample_token(probs, u):
    """Inverse-CDF sampling: the token whose slice of the cumulative distribution holds u.

    Args:
        probs: (..., V) probabilities, each row summing to 1 (up to rounding); zeros allowed.
        u: a float in [0, 1), or an tensor of them broadcastable to probs.shape[:-1].

    Returns:
        The smallest index i with cumsum(probs)[i] > u (`torch.searchsorted(cdf, u, right=True)`). If
        rounding leaves u >= the last cumulative sum, the last token with probability > 0. An integer for
        1-D probs and a scalar u; else an int64 tensor of shape probs.shape[:-1]. probs is left unchanged.

    Example (the cumulative sums are 0.25, 0.5, 1.0; u = 0.5 sits on a boundary and goes right):
        >>> sample_token(torch.tensor([0.25, 0.25, 0.5]), 0.5)
        tensor(2)
    """
    # TODO: the cumulative sums of each row; the smallest i with cdf[i] > u.
    # TODO: if rounding leaves u past the last sum, the last token with probability > 0.
    raise NotImplementedError("kata 09: write sample_token")

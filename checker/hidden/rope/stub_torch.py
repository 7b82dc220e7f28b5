"""Kata 06: rotary position embeddings (RoPE).

RoPE tells attention where tokens are by rotating each query and key, two channels at a time, by an
angle proportional to its position. A rotation keeps lengths, and the dot product of a query turned to
position m with a key turned to position n depends only on n - m: attention sees how far apart two
tokens are, not where they sit. Values are never rotated.

The pairing is half-split, as Llama and GPT-NeoX (`rotate_half`): channel i turns with channel i + d/2,
not with channel i + 1 (the interleaved pairing of the paper and GPT-J).

In PyTorch: your functions receive torch tensors and return tensors (an int may come back as a 0-d
tensor). The worked examples show what torch prints, computed from a correct PyTorch answer.
"""

import math

import torch


def rope(x, positions, base=10000.0):
    """Rotate x by its positions: half-split RoPE (Llama / GPT-NeoX `rotate_half`).

    Args:
        x: float tensor (..., n, d), d even: queries or keys of n positions, any leading axes (batch, heads).
        positions: integers, a list or an int64 tensor: (n,), or any shape broadcastable to x.shape[:-1]
            (e.g. (b, 1, n) for x (b, h, n, d): per-row positions of a left-padded batch). Up to 65 536.
        base: the base of the frequencies (10 000 in the paper and Llama 2, 500 000 in Llama 3).

    Returns:
        An tensor of x's shape, floating point (float32 in may stay float32). For each pair i < d/2,
        with theta_i = base ** (-2i / d) and the angle a = p * theta_i (p: the position of that row):
            out[..., i]       = x[..., i] * cos(a) - x[..., i + d/2] * sin(a)
            out[..., i + d/2] = x[..., i + d/2] * cos(a) + x[..., i] * sin(a)
        Channel i pairs with channel i + d/2; pair 0 turns fastest (1 radian per position), pair d/2 - 1
        slowest. Angles may be computed in float64 or in float32 (as Hugging Face does). x and positions
        are left unchanged.

    Example (d = 4, base = 100: theta = [1, 0.1]):
        >>> rope(torch.tensor([[1.0, 0.0, 0.0, 0.0]]), [0])  # position 0: nothing turns
        tensor([[1., 0., 0., 0.]])
        >>> rope(torch.tensor([[1.0, 0.0, 0.0, 0.0]]), [2], base=100.0).round(decimals=3)  # channel 0 turns into channel 2
        tensor([[-0.4160,  0.0000,  0.9090,  0.0000]])
    """
    # TODO: theta_i = base ** (-2i / d) for i < d/2, and the angle of each row's pair i: position * theta_i.
    # TODO: split the channels into halves x1 = x[..., :d/2] and x2 = x[..., d/2:] (channel i pairs with i + d/2).
    # TODO: turn each pair: (x1 cos - x2 sin, x2 cos + x1 sin), joined back into (..., n, d).
    # TODO: work on new tensors; positions may be (n,) or (b, 1, n): let broadcasting line them up with x.
    raise NotImplementedError("kata 06: write rope")


def rope_attention(q, k, v, base=10000.0):
    """Causal attention of t new queries over n_k keys, with RoPE on queries and keys (never values).

    Args:
        q: float tensor (..., t, d), d even, t <= n_k: the LAST t of the n_k positions (query i is at
           position n_k - t + i, as a prefill continued or a decode step with a KV cache).
        k: float tensor (..., n_k, d): un-rotated keys of positions 0, 1, ..., n_k - 1.
        v: float tensor (..., n_k, d_v): values (not rotated). q, k and v share their leading axes.
        base: as in rope.

    Returns:
        Tensor (..., t, d_v): softmax(rope(q) . rope(k) / sqrt(d), causal) @ v, each of q and k rotated by
        its own absolute positions; query i sees keys j <= n_k - t + i (bottom-right, as kata 03).
        q, k and v are left unchanged.

    Example (one query, the last of three positions, sees all three keys):
        >>> q, k = torch.ones(1, 4), torch.ones(3, 4)
        >>> v = torch.tensor([[1.0], [2.0], [3.0]])
        >>> rope_attention(q, k, v).round(decimals=3)
        tensor([[2.4040]])
    """
    # TODO: query i is position n_k - t + i; key j is position j. Rotate q and k by their own positions.
    # TODO: scores (..., t, n_k) = rotated q . rotated k / sqrt(d).
    # TODO: causal, bottom-right: query i sees keys j <= n_k - t + i; block the rest before the softmax.
    # TODO: softmax over the keys, then mix the values (never rotated).
    raise NotImplementedError("kata 06: write rope_attention")

"""The answers of kata 10's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import math

import numpy as np


def top_left_wrong_cells(t, n):
    """Cells of the (t, n) mask that np.tril(np.ones((t, n))) gets wrong against the bottom-right mask."""
    top_left = np.tril(np.ones((t, n), dtype=bool))
    bottom_right = np.tril(np.ones((t, n), dtype=bool), k=n - t)
    return int((top_left != bottom_right).sum())


def unscaled_score_spread(d_head):
    """The standard deviation of q . k for unit-variance entries: sqrt(d_head), as no scale leaves it."""
    return math.sqrt(d_head)


def tokens_in_first_head(t, h, d_head):
    """How many different tokens head 0 mixes after x.reshape(b, h, t, d_head) of a (b, t, h * d_head) x."""
    token_of_entry = np.repeat(np.arange(t), h * d_head).reshape(1, t, h * d_head)  # (1, t, d_model)
    head = token_of_entry.reshape(1, h, t, d_head)[0, 0]  # (t, d_head) as the bug reads it
    return int(np.unique(head).size)


def cached_positions_shared(first, second):
    """len() of a second cache built after a first got `first` positions, both sharing a mutable default,
    once the second is fed `second` positions."""
    return first + second

"""The answers of kata 04's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import math

from checker.practice.worked import ABC, reference


def split_shape(b, n, d_model, h):
    return (b, h, n, d_model // h)


def head_size(d_model, h):
    return d_model // h


def head_scale(d_model, h):
    return math.sqrt(d_model // h)


def projection_parameters(d_model):
    """W_Q, W_K, W_V and W_O, each d_model x d_model, no biases."""
    return 4 * d_model * d_model


def merged_shape(b, h, n, d_head):
    return (b, n, h * d_head)


def abc_causal_output_row_b():
    """Row B of the A/B/C example with the causal mask: one head, identity projections."""
    import numpy as np

    x = np.array([ABC])  # (1, 3, 2)
    eye = np.eye(2)
    return reference("multi-head").multi_head_attention(x, eye, eye, eye, eye, 1, causal=True)[0, 1]

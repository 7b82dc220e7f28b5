"""Builds a table far larger than the sandbox's memory limit (100k x 100k floats: 80 GB)."""
import numpy as np


def attention_scores(q, k):
    table = np.ones((100_000, 100_000))
    return table[: np.shape(q)[-2], : np.shape(k)[-2]]

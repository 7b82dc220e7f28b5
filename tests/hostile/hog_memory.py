"""Asks for far more memory than the sandbox allows."""
import numpy as np


def attention_scores(q, k):
    hoard = []
    while True:
        hoard.append(np.ones(2**27))  # 1 GiB at a time

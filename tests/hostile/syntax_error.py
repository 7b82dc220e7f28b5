"""Does not parse."""
import numpy as np


def attention_scores(q, k)
    return q @ k.T

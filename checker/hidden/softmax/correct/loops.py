"""Correct: moves `axis` to the end and normalises each slice with plain Python loops."""
import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    moved = np.moveaxis(x, axis, -1)
    out = np.empty(moved.shape, dtype=np.float64)
    for idx in np.ndindex(moved.shape[:-1]):
        row = moved[idx].tolist()
        if any(math.isnan(v) for v in row):
            out[idx] = math.nan  # a NaN input is never hidden
            continue
        peak = max(row, default=-math.inf)
        if peak == -math.inf:
            out[idx] = 0.0  # nothing to attend to
            continue
        exps = [math.exp(v - peak) for v in row]  # the peak gives exp(0) = 1, so total >= 1
        total = sum(exps)
        out[idx] = [e / total for e in exps]
    return np.moveaxis(out, -1, axis)

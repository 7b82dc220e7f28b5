"""Log-weights by np.logaddexp.reduce of each slice moved to the end and shifted by its own top first (so log n
survives numbers near 3e38), then exp; slices of only -inf are put back as zeros."""
import numpy as np


def softmax(x, axis=-1):
    values = np.asarray(x)
    if values.dtype.kind != "f":
        values = values.astype(np.float64)
    last = np.moveaxis(values, axis, -1)  # (..., n): the slices along the last axis
    with np.errstate(invalid="ignore"):
        top = last.max(axis=-1)[..., None]  # (..., 1)
        centred = last - np.where(np.isfinite(top), top, 0)
        log_weights = centred - np.logaddexp.reduce(centred, axis=-1)[..., None]
    empty = np.isneginf(last).all(axis=-1)[..., None]  # (..., 1): nothing to weigh
    return np.moveaxis(np.where(empty, 0.0, np.exp(log_weights)), -1, axis).astype(values.dtype)

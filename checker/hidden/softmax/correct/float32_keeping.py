"""Correct: keeps float32/float16 (float16 computed in float32 inside); other inputs become float64."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    out_dtype = x.dtype if x.dtype in (np.float16, np.float32) else np.float64
    work = x.astype(np.float32 if out_dtype == np.float16 else out_dtype)
    m = work.max(axis=axis, keepdims=True)
    m[np.isneginf(m)] = 0  # m is a new array: safe to edit
    e = np.exp(work - m)
    s = e.sum(axis=axis, keepdims=True)
    all_masked = s == 0
    w = e / np.where(all_masked, 1, s)  # e is 0 there, so 0 / 1 = 0
    return w.astype(out_dtype, copy=False)

"""Writes every result into one module-level buffer and hands it back: the previous result changes."""
import numpy as np

_BUFFER = {}


def attention_scores(q, k):
    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
    shape = np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (q.shape[-2], k.shape[-2])
    out = _BUFFER.get(shape)
    if out is None:
        out = _BUFFER[shape] = np.empty(shape)
    np.matmul(q, np.swapaxes(k, -1, -2), out=out)
    out /= np.sqrt(q.shape[-1])
    return out

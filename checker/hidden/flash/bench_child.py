"""The part of `kata bench 08` that runs in the sandbox's child: it makes the inputs there, loads the kata
file there and measures it there (time with a stopwatch, memory with tracemalloc), so neither the round
trip to the parent nor the inputs' transfer is in any number. Loaded by the bench as the sandbox's file,
never imported by the checker; it needs nothing but the standard library and NumPy.
"""

import time
import tracemalloc
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader

import numpy as np


def _load(path):
    loader = SourceFileLoader("kata_bench_subject", path)  # any file name works, as in the sandbox
    module = module_from_spec(spec_from_loader("kata_bench_subject", loader))
    loader.exec_module(module)
    return module


def plain_attention(q, k, v):
    """softmax(q . k^T / sqrt(d)) @ v with the whole (n_q, n_k) table: what flash attention avoids."""
    scores = q @ np.swapaxes(k, -1, -2) / q.dtype.type(np.sqrt(q.shape[-1]))  # (n_q, n_k)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (n_q, n_k)
    return weights / weights.sum(axis=-1, keepdims=True) @ v  # (n_q, d_v)


def _inputs(n_q, n_k, d, seed):
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(size=(n, d)).astype(np.float32) for n in (n_q, n_k, n_k))


def _measure(function, q, k, v, repeats):
    """(median seconds, peak bytes of one call under tracemalloc, the output)."""
    tracemalloc.start()
    try:
        out = function(q, k, v)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    times = []
    for _ in range(repeats):  # timed without tracemalloc, which slows every allocation
        began = time.perf_counter()
        function(q, k, v)
        times.append(time.perf_counter() - began)
    return float(np.median(times)), peak, np.asarray(out, np.float64)


def run(path, sizes, n_q, d, block_size, repeats, seed):
    """For each n_k: (seconds, peak bytes) of the file's flash_attention and of plain attention, and the
    largest difference between their outputs. Returns an array (len(sizes), 5)."""
    kata = None if path is None else _load(path)
    rows = []
    for n_k in sizes:
        q, k, v = _inputs(n_q, n_k, d, seed)
        flash = _measure(lambda q, k, v: kata.flash_attention(q, k, v, block_size=block_size), q, k, v, repeats)
        plain = _measure(plain_attention, q, k, v, repeats)
        rows.append([flash[0], flash[1], plain[0], plain[1], float(np.abs(flash[2] - plain[2]).max())])
    return np.array(rows)

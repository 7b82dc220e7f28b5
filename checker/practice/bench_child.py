"""The part of `kata bench` that runs in the sandbox's child: it loads a kata file there and times it there.

Loaded by `checker.practice.bench` as the sandbox's file, never imported by the checker. Timing inside the child
leaves the round trip to the parent (sending the weights, the arrays back) out of every number.
It needs nothing but the standard library and NumPy.
"""

import time
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader

import numpy as np


def _load(path):
    loader = SourceFileLoader("kata_bench_subject", path)  # any file name works, as in the sandbox
    module = module_from_spec(spec_from_loader("kata_bench_subject", loader))
    loader.exec_module(module)
    return module


def time_decode(path, x, w_q, w_k, w_v, w_o, n_heads, sizes, steps, chunk, warm_up):
    """Seconds per decode step at each cache length n (the median of `steps` steps), and each size's last output.

    The cache is filled by prefill calls of `chunk` tokens, then `warm_up` steps of one token run untimed and
    `steps` more are timed one by one (n is the cache length when the timed steps begin).
    Returns (seconds (len(sizes),), outputs (len(sizes), b, 1, d_model)).
    """
    kata = _load(path)
    weights = (w_q, w_k, w_v, w_o)
    seconds, outputs = [], []
    for n in sizes:
        cache = kata.KVCache()
        for start in range(0, n, chunk):
            kata.cached_attention(x[:, start:min(start + chunk, n)], cache, *weights, n_heads)
        for position in range(n, n + warm_up):  # untimed: the first steps pay for caches and lazy set-up
            kata.cached_attention(x[:, position:position + 1], cache, *weights, n_heads)
        times = []
        for position in range(n + warm_up, n + warm_up + steps):
            began = time.perf_counter()
            out = kata.cached_attention(x[:, position:position + 1], cache, *weights, n_heads)
            times.append(time.perf_counter() - began)
        seconds.append(float(np.median(times)))
        outputs.append(np.asarray(out, dtype=np.float64))
    return np.array(seconds), np.stack(outputs)


def time_recompute(path, x, w_q, w_k, w_v, w_o, n_heads, sizes, repeats):
    """Seconds to make token n's output without a cache: kata 04's attention over all n + 1 tokens (median)."""
    kata = _load(path)
    seconds = []
    for n in sizes:
        times = []
        for _ in range(repeats):
            began = time.perf_counter()
            kata.multi_head_attention(x[:, :n + 1], w_q, w_k, w_v, w_o, n_heads, causal=True)
            times.append(time.perf_counter() - began)
        seconds.append(float(np.median(times)))
    return np.array(seconds)

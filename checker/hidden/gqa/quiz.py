"""The answers of kata 07's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import numpy as np

BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "int8": 1}  # bytes a number in the cache takes


def kv_cache_bytes(heads, n, d, dtype):
    """One layer, one sequence: a key and a value for every head, position and channel."""
    return 2 * heads * n * d * BYTES[dtype]


def gqa_mebibytes_saved(h_q, h_kv, n, d, dtype):
    """The KV cache of one layer and sequence with h_q kv heads (multi-head) minus that with h_kv, in MiB."""
    return (kv_cache_bytes(h_q, n, d, dtype) - kv_cache_bytes(h_kv, n, d, dtype)) / 2**20


def kv_head_for(h_q, h_kv, i):
    """The kv head that query head i reads: its group's, i // (h_q / h_kv)."""
    return i // (h_q // h_kv)


def tiled_kv_head(h_q, h_kv, i):
    """The kv head that np.tile(k, (1, h_q // h_kv, 1, 1)) puts in front of query head i."""
    return int(np.tile(np.arange(h_kv), h_q // h_kv)[i])


def group_size(h_q, h_kv):
    return h_q // h_kv


def mqa_mebibytes(h, mha_mebibytes):
    """Multi-query keeps one kv head of the h: the cache is h times smaller."""
    return mha_mebibytes / h


def repeated_shape(b, h_kv, n, d, n_rep):
    return (b, h_kv * n_rep, n, d)


def gqa_output_shape(b, h_q, h_kv, n_q, n_k, d, d_v):
    return (b, h_q, n_q, d_v)

"""The answers of kata 08's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import math


def score_table_mib(n, heads):
    """Plain attention's float32 score table: n x n numbers per head."""
    return heads * n * n * 4 / 2**20


def block_kib(n, block):
    """One block of float32 scores: n queries against `block` keys."""
    return n * block * 4 / 2**10


def flash_working_mib(n, d, block):
    """What flash attention holds for one head in float32: q, k, v and the output (n x d each), one block
    of scores, and the running max and sum (n each)."""
    return (4 * n * d + n * block + 2 * n) * 4 / 2**20


def rescale_factor(a, b):
    """The running max moves from a to b: l and o are multiplied by exp(a - b)."""
    return math.exp(a - b)


def block_count(n_k, block):
    return math.ceil(n_k / block)


def last_block_keys(n_k, block):
    return n_k - (math.ceil(n_k / block) - 1) * block


def final_sum(s1, s2, s3, s4):
    """l at the end, whatever the blocks: every term measured against the final max."""
    scores = (s1, s2, s3, s4)
    return sum(math.exp(s - max(scores)) for s in scores)

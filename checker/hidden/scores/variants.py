"""What code carrying each catalogued bug of kata 01 computes, to recognise it by its output.

Score variants take (q, k) like attention_scores. Divisor variants are the scale bugs as one piece,
`divisor(d_head, n_q, n_k)`: the number the scores were divided by. Later katas build their attention
variants from these pieces, so a scale bug keeps its id wherever scores are scaled.
"""

import numpy as np

from checker.engine.testkit import variant, variants_in


def right_divisor(d_head, n_q, n_k):
    return np.sqrt(d_head)


class Coincidence(ValueError):
    """This input cannot tell the scale bug from sqrt(d_k) rounded to an integer: the variant abstains."""


def _telling(divisor):
    """A divisor variant that abstains (raises Coincidence) where its number equals sqrt(d_k) rounded down or to
    the nearest integer (math.isqrt(5) = 2 = sqrt(4) = sqrt(n_q)): such an input names nothing."""

    def told(d_head, n_q, n_k):
        value = divisor(d_head, n_q, n_k)
        rounded = {float(np.floor(np.sqrt(d_head))), float(np.round(np.sqrt(d_head)))}
        if any(np.isclose(value, r, rtol=1e-9) for r in rounded if r > 0):
            raise Coincidence(f"{value:g} is also sqrt({d_head}) rounded")
        return value

    told.__doc__, told.__name__ = divisor.__doc__, divisor.__name__
    return told


@variant("missing-scale", of="divisor")
@_telling
def _no_divisor(d_head, n_q, n_k):
    """the 1/sqrt(d_k) scale is missing"""
    return 1.0


@variant("scale-by-dk", of="divisor")
@_telling
def _by_d(d_head, n_q, n_k):
    """the scores were divided by d_k instead of sqrt(d_k) (or q and k were each scaled by 1/sqrt(d_k))"""
    return float(d_head)


@variant("scale-inverted", of="divisor")
@_telling
def _inverted(d_head, n_q, n_k):
    """the scores were multiplied by sqrt(d_k) instead of divided by it"""
    return 1 / np.sqrt(d_head)


@variant("scale-by-seq-len", of="divisor")
@_telling
def _by_queries(d_head, n_q, n_k):
    """the scores were divided by the square root of n_q, a token count, instead of sqrt(d_k)"""
    return np.sqrt(n_q)


@variant("scale-by-seq-len", of="divisor")
@_telling
def _by_keys(d_head, n_q, n_k):
    """the scores were divided by the square root of n_k, a token count, instead of sqrt(d_k)"""
    return np.sqrt(n_k)


# Products are the table q . k^T as one piece, `product(q, k)`, before any scale: the bugs of kata 01 that
# get the table itself wrong. Later katas build their scores from them too.

def right_product(q, k):
    return q @ np.swapaxes(k, -1, -2)


@variant("batch-transpose", of="product")
def full_transpose_product(q, k):
    """k.T reverses every axis of a batched k, not just the last two: use np.swapaxes(k, -1, -2)"""
    return q @ k.T


@variant("reshape-as-transpose", of="product")
def reshape_product(q, k):
    """k was reshaped to (d_k, n_k), which reorders its numbers instead of transposing them"""
    return q @ k.reshape(*k.shape[:-2], k.shape[-1], k.shape[-2])


@variant("keys-against-queries", of="product")
def keys_against_queries_product(q, k):
    """this is k @ q^T, the table transposed: rows must be queries, columns keys"""
    return k @ np.swapaxes(q, -1, -2)


def _scores_of(product):
    """A score variant (q, k) of kata 01: the buggy product, rightly scaled."""

    def scores(q, k):
        q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
        return product(q, k) / np.sqrt(q.shape[-1])

    scores.__doc__ = product.__doc__
    return variant(product.variant_of, of="scores")(scores)


SCORE_VARIANTS = [_scores_of(product) for product in variants_in(globals(), of="product")]

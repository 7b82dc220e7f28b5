"""Kata 09's reference against an independent transcription of Hugging Face's sampling warpers.

`transformers.generation.logits_process` (TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper,
min_tokens_to_keep = 1, filter_value = -inf), transcribed to NumPy line by line, without the dependency.
HF's top-p sorts ASCENDING and removes the tokens whose cumulative probability is <= 1 - top_p, then keeps
the last min_tokens_to_keep. On inputs whose sums stay away from top_p and hold no ties the two agree;
where tied probabilities straddle the threshold they differ (SPEC keeps the lower index, HF's stable
ascending sort the higher), which the last test pins down.
"""

import itertools
from functools import lru_cache

import numpy as np
import pytest

from checker.engine import catalog, prompts


@lru_cache(maxsize=None)
def reference():
    return catalog.find("sampling").reference()


# --- Hugging Face, transcribed -----------------------------------------------------------------------

def hf_temperature(scores, temperature):
    return scores / temperature


def hf_top_k(scores, top_k, min_tokens_to_keep=1):
    top_k = min(max(top_k, min_tokens_to_keep), scores.shape[-1])
    kth = -np.sort(-scores, axis=-1)[..., top_k - 1, None]  # torch.topk(scores, top_k)[0][..., -1, None]
    return np.where(scores < kth, -np.inf, scores)


def hf_softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def hf_top_p(scores, top_p, min_tokens_to_keep=1):
    sorted_indices = np.argsort(scores, axis=-1, kind="stable")  # torch.sort(descending=False)
    sorted_logits = np.take_along_axis(scores, sorted_indices, axis=-1)
    cumulative_probs = np.cumsum(hf_softmax(sorted_logits), axis=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[..., -min_tokens_to_keep:] = False
    indices_to_remove = np.empty_like(sorted_indices_to_remove)  # .scatter(1, sorted_indices, ...)
    np.put_along_axis(indices_to_remove, sorted_indices, sorted_indices_to_remove, axis=-1)
    return np.where(indices_to_remove, -np.inf, scores)


def hf_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """generate(do_sample=True): the warpers in their order (each only when it changes something), softmax."""
    scores = np.asarray(logits, np.float64)
    if temperature != 1.0:
        scores = hf_temperature(scores, temperature)
    if top_k:
        scores = hf_top_k(scores, top_k)
    if top_p is not None and top_p < 1.0:
        scores = hf_top_p(scores, top_p)
    return hf_softmax(scores)


def _sums_before(logits, temperature, top_k):
    probs = reference().next_token_probs(logits, temperature, top_k)
    ranked = -np.sort(-probs, axis=-1)
    return np.cumsum(ranked, axis=-1) - ranked


# --- the reference agrees ----------------------------------------------------------------------------

MAX_DIFFERENCE = 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_reference_matches_hugging_face(seed):
    rng = np.random.default_rng(seed)
    compared = 0
    for temperature, top_k, top_p in itertools.product((0.3, 0.7, 1.0, 2.5), (None, 1, 3, 10, 40),
                                                       (None, 0.05, 0.5, 0.9, 0.99)):
        logits = rng.normal(size=(3, 4, 17)) * rng.uniform(0.5, 4)
        if np.abs(_sums_before(logits, temperature, top_k) - (top_p or 2)).min() < 1e-6:
            continue  # SPEC's tests keep every sum away from top_p; rounding may decide such a case
        got = reference().next_token_probs(logits, temperature, top_k, top_p)
        np.testing.assert_allclose(got, hf_probs(logits, temperature, top_k, top_p), rtol=0, atol=MAX_DIFFERENCE)
        compared += 1
    assert compared >= 90


def test_large_logits_match_hugging_face():
    logits = np.array([[1e4, -1e4, 9999.0, 0.0, 9998.5], [-1e4, -1e4 + 1, -1e4 + 3, -1e4 + 0.5, -1e4 - 2]])
    for options in ({}, {"temperature": 0.5, "top_p": 0.9}, {"top_k": 2},
                    {"temperature": 3.0, "top_k": 4, "top_p": 0.6}):
        np.testing.assert_allclose(reference().next_token_probs(logits, **options), hf_probs(logits, **options),
                                   rtol=0, atol=MAX_DIFFERENCE)


def test_top_k_ties_are_kept_as_in_hugging_face():
    logits = np.array([[3.0, 1.0, 2.0, 2.0, 0.0, -1.0], [0.5, 0.5, 0.5, 2.0, -1.0, 1.0]])
    for top_k in (1, 2, 3, 6, 9):
        np.testing.assert_allclose(reference().next_token_probs(logits, top_k=top_k), hf_probs(logits, top_k=top_k),
                                   rtol=0, atol=MAX_DIFFERENCE)


def test_a_tie_across_top_p_is_where_the_two_differ():
    # p = .687, .093 (three tied), .034: top_p = 0.75 keeps the largest and ONE of the tied three
    logits = np.array([1.0, 3.0, 1.0, 1.0, 0.0])
    ours = reference().next_token_probs(logits, top_p=0.75) > 0
    theirs = hf_probs(logits, top_p=0.75) > 0
    assert np.flatnonzero(ours).tolist() == [0, 1]  # SPEC: a stable descending sort, lower index first
    assert np.flatnonzero(theirs).tolist() == [1, 3]  # HF, stable ascending: the higher index survives


# --- the quiz never asks about a sum sitting on top_p ------------------------------------------------

def test_quiz_nuclei_stay_away_from_their_boundaries():
    for question in prompts.load()["sampling"].questions:
        if "top_p" not in question.draw:
            continue
        for probs, top_p, top_k in itertools.product(question.draw["probs"], question.draw["top_p"],
                                                     question.draw.get("k", [None])):
            sums = _sums_before(np.log(probs), 1.0, top_k)
            assert np.abs(sums - top_p).min() > 1e-3, (question.id, probs, top_p, top_k)

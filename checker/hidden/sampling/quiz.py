"""The answers of kata 09's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import numpy as np

from checker.practice.worked import reference


def _ref():
    return reference("sampling")


def _logits_of(probs):
    return np.log(np.asarray(probs, np.float64))


def nucleus_tokens(probs, top_p):
    """The tokens top-p keeps of the given probabilities, in increasing index order."""
    kept = _ref().next_token_probs(_logits_of(probs), top_p=top_p) > 0
    return [int(i) for i in np.flatnonzero(kept)]


def nucleus_size(probs, top_p):
    return len(nucleus_tokens(probs, top_p))


def tempered_probs(logits, temperature):
    return _ref().next_token_probs(np.asarray(logits, np.float64), temperature=temperature)


def drawn_token(probs, u):
    return _ref().sample_token(np.asarray(probs, np.float64), u)


def top_k_kept(logits, k):
    return int((_ref().next_token_probs(np.asarray(logits, np.float64), top_k=k) > 0).sum())


def greedy_token(logits):
    return int(np.argmax(_ref().next_token_probs(np.asarray(logits, np.float64), temperature=0.0)))


def top_k_then_top_p(probs, k, top_p):
    """The probabilities after top-k, then top-p of what top-k left."""
    return _ref().next_token_probs(_logits_of(probs), top_k=k, top_p=top_p)

"""The answers of kata 14's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import doctest

import numpy as np

from checker.practice.worked import reference


def _ref():
    return reference("speculative")


def expected_tokens(alpha, gamma):
    """Expected new tokens per step when each drafted token is accepted with probability alpha, independently
    (Leviathan et al.): 1 + alpha + ... + alpha^gamma = (1 - alpha^(gamma + 1)) / (1 - alpha)."""
    return float(sum(alpha**k for k in range(gamma + 1)))


def target_passes(alpha, gamma, tokens):
    """Expected target forward passes (one a step) to produce `tokens` new tokens, to the nearest pass."""
    return float(tokens / expected_tokens(alpha, gamma))


def acceptance_probability(p_target_x, p_draft_x):
    return float(min(1.0, p_target_x / p_draft_x))


def acceptance_rate(p_target, p_draft):
    """The probability that a token drawn from p_draft is accepted: sum(min(p_target, p_draft))."""
    return float(np.minimum(np.asarray(p_target, np.float64), np.asarray(p_draft, np.float64)).sum())


def rejection_rate(p_target, p_draft):
    """1 - acceptance_rate: the total variation distance between the two distributions."""
    return float(np.maximum(np.asarray(p_target, np.float64) - np.asarray(p_draft, np.float64), 0).sum())


def residual(p_target, p_draft):
    return _ref().residual_distribution(np.asarray(p_target, np.float64), np.asarray(p_draft, np.float64))


def first_token_probability(p_target, p_draft, token):
    """P(first new token = token), over the draft's token and the uniforms: accepted as the draft's token,
    min(p_draft, p_target)[token], plus rejected and drawn from the residual, rejection rate x residual[token]."""
    kept = float(np.minimum(p_target, p_draft)[token])
    return kept + rejection_rate(p_target, p_draft) * float(residual(p_target, p_draft)[token])


def worked_model():
    """(p_draft, p_target) of the worked example, read from the reference's docstring: never typed twice."""
    namespace = {"np": np}
    for example in doctest.DocTestParser().get_examples(_ref().speculative_step.__doc__):
        if example.source.startswith(("p_draft =", "p_target =")):
            exec(example.source, namespace)  # noqa: S102 - the trusted reference's own docstring
    return namespace["p_draft"], namespace["p_target"]


def step_tokens(draft_tokens, u_accept, u_sample):
    """The new tokens of speculative_step on the worked example's model (the stub's docstring)."""
    p_draft, p_target = worked_model()
    return _ref().speculative_step(p_draft, p_target, draft_tokens, u_accept, u_sample)


def most_tokens(gamma):
    """gamma drafted tokens all accepted, then the bonus."""
    return gamma + 1

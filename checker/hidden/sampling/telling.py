"""Kata 09's second opinions: a name found on one call is a hypothesis, tried again on calls built to tell it apart
from mistakes outside the catalogue that gave the same probabilities there.

- `top-k-off-by-one` seen under top-k AND top-p (where a nucleus cut a token short of top_p can remove the same
  token) is named only when top-k alone, with k = 3 and k = 5, keeps the variant's tokens.
- `top-p-drops-crossing-token` seen where the sums sit within a few hundredths of top_p (a threshold a little
  below top_p drops the same token) is named only when top-p alone drops the crossing token where it crosses
  top_p by 0.2 and where it crosses by 0.25, and on flat rows (where cumulating the unnormalised exponentials,
  each 1, keeps a single token).
"""

import numpy as np

from checker.hidden.sampling.variants import DISTRIBUTION_VARIANTS
from checker.sandbox import LearnerError
from checker.engine.testkit import close, tolerance

_LOGITS = np.array([[0.3, -1.2, 2.0, 0.9, -0.4, 1.4, -2.1], [1.1, 0.2, -0.7, 2.4, -1.5, 0.6, 1.8]])
CALLS = {  # (logits, options) whose answers tell the bug from its rivals
    "top-k-off-by-one": [(_LOGITS, {"top_k": 3}), (_LOGITS, {"top_k": 5})],
    "top-p-drops-crossing-token": [(np.log([[0.5, 0.3, 0.2], [0.4, 0.35, 0.25]]), {"top_p": 0.6}),
                                   (np.log([[0.4, 0.35, 0.25], [0.6, 0.3, 0.1]]), {"top_p": 0.5}),
                                   # flat rows: cumulating exp(x - max) unnormalised (each 1) keeps one token
                                   (np.log([[0.25] * 4 + [1e-9], [0.2] * 5]), {"top_p": 0.55})],
}


def _shows(kata, bug_id, logits, options):
    try:
        got = np.asarray(kata.next_token_probs(logits, **options), np.float64)
    except (LearnerError, TypeError, ValueError):
        return False
    rtol, atol = tolerance(got, logits.astype(np.float32))
    forms = [form for form in DISTRIBUTION_VARIANTS if form.variant_of == bug_id]
    return got.shape == logits.shape and any(close(got, form(logits, **options), rtol, atol).all() for form in forms)


def confirmed(kata, bug_id):
    """False when `bug_id` needs a second opinion and the learner's file (None: none to ask) does not give it."""
    calls = CALLS.get(bug_id)
    return calls is None or (kata is not None and all(_shows(kata, bug_id, logits, options)
                                                       for logits, options in calls))

"""The public checks of kata 09: `kata pack` copies `check` into a candidate's check.py (as check_sampling)
with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

import numpy as np

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    b, n, vocab = distinct(draw, 3, 2, 9)
    return [{"lead": [b, n], "vocab": vocab, "top_k": draw.randint(1, vocab - 1), "top_p": draw.choice([0.5, 0.9])},
            {"lead": [], "vocab": vocab, "top_k": 0, "top_p": 1.0}]  # both filters off (None is not JSON)


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    lead, vocab, top_k, top_p = tuple(dims["lead"]), dims["vocab"], dims["top_k"], dims["top_p"]
    call = f"next_token_probs(logits {lead + (vocab,)}, temperature=0.7, top_k={top_k}, top_p={top_p})"
    probs = module.next_token_probs(random_array(*lead, vocab), temperature=0.7, top_k=top_k, top_p=top_p)
    expect_shape(call, probs, lead + (vocab,))
    token = module.sample_token(np.asarray(probs), np.full(lead, 0.5) if lead else 0.5)
    call = f"sample_token(probs {lead + (vocab,)}, u {'of shape ' + str(lead) if lead else '= 0.5'})"
    if lead:
        expect_shape(call, token, lead)
        if np.asarray(token).dtype.kind not in "iu":
            raise Problem(f"{call} returned dtype {np.asarray(token).dtype}, expected an int array")
    elif not isinstance(token, (int, np.integer)) or isinstance(token, bool):
        raise Problem(f"{call} returned {type(token).__name__}, expected an int")

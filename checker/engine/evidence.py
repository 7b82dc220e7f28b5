"""What counts as evidence for a bug's name: a name needs an input where the candidate explanations differ.

A symptom many bugs share (an output of only NaN or only zeros) names nothing; a NaN whose first line
contradicts the named cause drops the name; Python's own float overflow is the exception a missing max shift
raises in pure-Python code.
"""

import numpy as np


def symptom_only(got, want):
    """True when `got` carries no number at all, only NaN/inf, or only zeros, where the answer is not so: a
    symptom many bugs share, which matches a variant by coincidence (an all-zero output, an all-NaN one) and so
    names nothing. A NaN in some places only is evidence when a variant puts it in just those places."""
    got = np.asarray(got)
    if got.dtype.kind != "f" or got.size < 2 or got.shape != np.shape(want):
        return False
    if np.array_equal(got, np.asarray(want, np.float64), equal_nan=True):
        return False  # the right answer is itself all zeros or all NaN
    return bool((~np.isfinite(got)).all() or (got == 0).all())


def trace_contradicts(bug_id, code, message):
    """True when the line that made the first NaN or inf (`code`, and NumPy's `message` there, from the NaN tracer)
    rules out the bug a check named. `no-max-shift` makes its first inf in exp, overflowing: a first NaN from a
    subtraction, a division or a cast, or an overflow on a line that does subtract a maximum, is another bug (a
    float16 overflow, a mask offset)."""
    overflow = "overflow" in message
    if bug_id == "no-max-shift":
        statement = code.split("#")[0]
        subtracts_max = "max" in statement and "-" in statement
        return not overflow or "exp" not in message or subtracts_max
    if bug_id in ("global-max", "max-floor-zero"):  # a shift too large or too small underflows: 0 / 0, never inf
        return overflow
    return False


def python_overflow(error):
    """True when the learner's code raised Python's own float overflow (`math.exp(1e4)`: OverflowError: math
    range error) where NumPy would have given inf: on an in-contract input that is the bug exp(x) without the
    max shift shows, and a test names it (after a control input rules out other causes) rather than an error."""
    return getattr(error, "type", None) == "OverflowError"

"""A result never changes because of a later call (SPEC): the check that keeps an earlier result and reads it
again after a second call, in the learner's process, where a module-level buffer handed back twice lives."""

import numpy as np

from checker.engine.testkit import Failure, close


def _arrays(value):
    """The arrays of a result (one array, or a tuple such as (out, weights)), in order."""
    if isinstance(value, (tuple, list)):
        return [np.asarray(item) for item in value if isinstance(item, np.ndarray)]
    return [np.asarray(value)] if isinstance(value, np.ndarray) else []


def expect_kept(function, first_args, second_args, first_text, second_text, bug=None):
    """Call `function(*first_args)`, keeping the very result in the child, then `function(*second_args)`; fail when
    the first result now reads differently from what it was when returned. `function` is a learner's function
    (proxy.LearnerFunction); `*_text` are the calls as messages show them. Returns the two results."""
    first, kept = function.keeping_result(*first_args)
    second = function(*second_args)
    now = kept()
    for index, (before, after) in enumerate(zip(_arrays(first), _arrays(now))):
        if after.shape == before.shape and after.dtype == before.dtype and close(after, before, 0, 0).all():
            continue
        part = f" (item {index} of the result)" if isinstance(first, (tuple, list)) else ""
        where = ""
        if after.shape == before.shape:
            at = tuple(int(i) for i in np.argwhere(~close(after, before, 0, 0))[0])
            where = f" at {list(at)}: was {before[at]:.4g}, now {after[at]:.4g}"
        else:
            where = f": was shape {before.shape}, now {after.shape}"
        raise Failure(f"the result of {first_text}{part} changed when {second_text} ran next{where}: each call "
                      "must return new arrays, never a module-level buffer (or any array a later call writes "
                      "into) handed back twice", bug)
    return first, second

"""Saying what a difference between the learner's array and the expected one looks like (shifted along an axis,
a permutation, a scale, where the wrong values sit), for a failure's message. NumPy only."""

import numpy as np

from checker.engine.compare import close, scale_between

def _axis_name(axes, axis):
    return axes[axis] if axes and axis < len(axes) else f"axis {axis}"


def _where_wrong(bad, axes):
    """`only position 3 and 4 are wrong`: the one axis along which the wrong numbers gather, if any."""
    for axis in range(bad.ndim):
        if bad.shape[axis] < 2:
            continue
        wrong = np.flatnonzero(np.moveaxis(bad, axis, 0).reshape(bad.shape[axis], -1).any(axis=1))
        if 0 < len(wrong) < bad.shape[axis]:
            shown = ", ".join(str(int(i)) for i in wrong[:6]) + (", ..." if len(wrong) > 6 else "")
            size = bad.shape[axis]
            if len(wrong) == 1:  # `only example 0 (of 2) differs`: one index, and how many there are
                name = axes[axis] if axes and axis < len(axes) else "index"
                where = "" if axes and axis < len(axes) else f"along axis {axis}, "
                return f"{where}only {name} {shown} (of {size}) differs"
            if axes and axis < len(axes):
                return f"only {axes[axis]} {shown} (of 0-{size - 1}) differ"
            return f"along axis {axis}, only indices {shown} (of 0-{size - 1}) differ"
    return ""


def _moved(got, want, rtol, atol, axes):
    """A shift by one along an axis, or a permutation of its slices, or the last two axes swapped."""
    if got.ndim >= 2 and got.shape[-1] == got.shape[-2] and close(got, np.swapaxes(want, -1, -2), rtol, atol).all():
        return f"it is the right result with its last two axes ({_axis_name(axes, got.ndim - 2)} and " \
               f"{_axis_name(axes, got.ndim - 1)}) transposed"
    for axis in range(got.ndim):
        size = got.shape[axis]
        if size < 2:
            continue
        g, w = np.moveaxis(got, axis, 0), np.moveaxis(want, axis, 0)
        name = _axis_name(axes, axis)
        if close(g[1:], w[:-1], rtol, atol).all():
            return f"shifted by one along {name}: {name} i holds what belongs at i - 1"
        if close(g[:-1], w[1:], rtol, atol).all():
            return f"shifted by one along {name}: {name} i holds what belongs at i + 1"
        if size > 12:
            continue
        source = [next((j for j in range(size) if close(g[i], w[j], rtol, atol).all()), None) for i in range(size)]
        if None not in source and sorted(source) == list(range(size)) and source != list(range(size)):
            moves = ", ".join(f"{i} holds {j}" for i, j in enumerate(source) if i != j)
            return f"the right numbers, in another order along {name} ({name} {moves})"
    return ""


def describe_difference(got, want, rtol, atol, axes=None):
    """What a wrong result looks like next to the right one, in words, when no catalogued bug explains it:
    NaN where the answer is finite, a constant factor or offset, a flipped sign, a transpose, a shift by
    one or a permutation along an axis, or the one axis along which the wrong numbers gather. `axes` names
    the axes ("example", "position", "channel"). Empty when nothing simple fits."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape or got.size == 0:
        return ""
    bad = ~close(got, want, rtol, atol)
    if not bad.any():
        return ""
    where = _where_wrong(bad, axes)
    suffix = f" ({where})" if where else ""
    finite = np.isfinite(want)
    if (~np.isfinite(got) & finite).any():
        count = int((~np.isfinite(got) & finite).sum())
        return f"{count} of {got.size} numbers are NaN or inf where the answer is finite{suffix}"
    if not got.any():
        return "every number is 0"
    c = scale_between(got, want, rtol, atol)
    if c is not None:
        return f"every number is {c:.4g} times the right one: a constant factor (a scale?)"
    if close(got, -want, rtol, atol).all():
        return "every number has the wrong sign"
    offset = got[bad] - want[bad]
    if np.ptp(offset) <= atol + rtol * np.abs(want).max() and bad.all():
        return f"every number is off by the same {float(offset.mean()):.4g}"
    moved = _moved(got, want, rtol, atol, axes)
    if moved:
        return moved
    return where

"""The public checks of kata 02: `kata pack` copies `check` into a candidate's check.py (as
check_softmax) with the cases that `cases` draws from the pack's seed. Shapes only, never values."""

from checker.hiring.pack import distinct
from checker.hiring.pack_check import Problem, expect_shape, random_array


def cases(draw):
    """The dimensions of this kata's shape checks, drawn from a pack's seed (`draw` is a random.Random)."""
    rows, cols, depth = distinct(draw, 3, 2, 7)
    return [{"shape": [rows, cols], "axis": -1},
            {"shape": [rows, cols, depth], "axis": draw.choice([0, 1, -2, -1])}]


def check(module, dims):
    """Run the candidate's `module` on one case of `cases`; raise Problem on a wrong shape."""
    shape, axis = tuple(dims["shape"]), dims["axis"]
    expect_shape(f"softmax(x {shape}, axis={axis})", module.softmax(random_array(*shape), axis=axis), shape)

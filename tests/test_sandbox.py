"""The sandbox's own promises: plain data back, learner errors as data, cost measured without a stopwatch."""

import numpy as np
import pytest

from checker.sandbox import LearnerError, Limits, Sandbox

LEARNER = '''
import numpy as np

def project(x, w):
    return x @ w

def project_einsum(x, w):
    return np.einsum("bnd,de->bne", x, w)

def project_per_head(x, w, h):
    d = w.shape[1] // h
    return [x @ w[:, i * d:(i + 1) * d] for i in range(h)]

def project_fused(x, w):
    w_qkv = np.concatenate([w, w, w], axis=1)  # one fused weight, as GPT-2's c_attn
    return np.split(x @ w_qkv, 3, axis=-1)

def project_fused_slices(x, w):
    halves = np.split(np.hstack([w, w]), 2, axis=1)  # a weight joined, then split again
    return [x @ half for half in halves]

def table(n):
    return np.ones((n, n)).sum()

def nan_maker(x):
    e = np.exp(x - x.max())
    return e / e.sum()

def scale_in_place(x):
    x *= 2
    return x

def fails():
    return [1, 2][5]
'''


@pytest.fixture
def sandbox(tmp_path):
    path = tmp_path / "learner.py"
    path.write_text(LEARNER)
    with Sandbox(path, Limits(seconds=20)) as box:
        assert box.load(["project", "missing"]) == ["missing"]
        yield box


@pytest.mark.parametrize("name, extra, times", [("project", (), 1), ("project_einsum", (), 1),
                                                ("project_per_head", (4,), 1), ("project_fused", (), 3),
                                                ("project_fused_slices", (), 2)])
def test_work_with_weights_is_counted_in_any_form(sandbox, name, extra, times):
    x, w = np.ones((2, 5, 8)), np.ones((8, 8))
    _, work = sandbox.measure(name, (x, w, *extra), counted=[1])
    assert work["weight_work"] == times * 2 * 5 * 8 * 8  # every row of x meets every weight column once


def test_peak_memory_shows_a_table(sandbox):
    small = sandbox.measure("table", (100,))[1]["peak_bytes"]
    large = sandbox.measure("table", (400,))[1]["peak_bytes"]
    assert large > 10 * small  # 16 times the cells


def test_trace_names_the_line_that_made_the_first_nan(sandbox):
    x = np.array([-np.inf, -np.inf])
    assert np.isnan(sandbox.call("nan_maker", (x,))).all()
    trace = sandbox.trace("nan_maker", (x,))
    assert trace["frames"][-1][2] == "e = np.exp(x - x.max())" and "invalid value" in trace["message"]


def test_arguments_come_back_as_the_call_left_them(sandbox):
    x = np.ones(3)
    result, (after,) = sandbox.call("scale_in_place", (x,), return_args=True)
    assert after.tolist() == [2, 2, 2] and x.tolist() == [1, 1, 1]


def test_learner_errors_are_data(sandbox):
    with pytest.raises(LearnerError) as error:
        sandbox.call("fails")
    assert error.value.type == "IndexError" and error.value.frames[-1][2] == "return [1, 2][5]"

"""What a failing learner sees: the weights drawn beside the right ones, and the line that made the first NaN."""

import json
import re

from click.testing import CliRunner

from checker.cli import cli
from checker.engine import catalog
from checker.engine.runner import check as run_check
from conftest import ZOO


def check(kata, path, *flags):
    return CliRunner().invoke(cli, ["check", kata, "--file", str(path), *flags], env={"NO_COLOR": "1"})


def grid_rows(text):
    """The rows of every drawn grid: (query, [the learner's cells], the learner's row sum)."""
    rows = []
    for line in text.splitlines():
        match = re.match(r"\s+q(\d+)\s+(.*?)\s+(\S+)\s+q\d+", line)
        if match:
            rows.append((int(match.group(1)), match.group(2).split(), match.group(3)))
    return rows


def test_mask_after_softmax_shows_rows_that_do_not_sum_to_one():
    output = check("03", ZOO / "causal-mask" / "mask-after-softmax.py").output
    sums = [float(total) for _, _, total in grid_rows(output)]
    assert sums and any(abs(total - 1) > 0.01 for total in sums)
    assert "*" in output  # the wrong cells are marked, colour or not
    assert "\x1b[" not in output


def test_top_left_mask_shows_where_the_future_leaked():
    output = check("04", ZOO / "multi-head" / "causal-ignored.py").output + \
        check("03", ZOO / "causal-mask" / "mask-top-left.py").output
    rows = grid_rows(output)
    assert any(cell.endswith("*") for _, cells, _ in rows for cell in cells)


def test_first_nan_is_traced_to_the_learners_line():
    path = ZOO / "causal-mask" / "fill-overflows-fp16.py"
    report = json.loads(check("03", path, "--json").stdout)
    failed = [t for t in report["tests"] if t["bug"] == "fill-overflows-fp16"]
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "-1e9" in text)
    assert any(f"{path.name}:{line}" in t["message"] and "overflow" in t["message"] for t in failed)


def test_nan_from_an_empty_row_is_traced():
    report = json.loads(check("02", ZOO / "softmax" / "nan-on-all-masked.py", "--json").stdout)
    assert any("the first NaN/inf came from" in t["message"] and "invalid value" in t["message"]
               for t in report["tests"] if t["outcome"] == "failed")


# --- messages that leave nothing to guess ---------------------------------------------------------

SCORES_BODY = "np.asarray(q, float) @ np.swapaxes(np.asarray(k, float), -1, -2) / np.sqrt(np.shape(q)[-1])"


def _check_source(tmp_path, slug, source, **limits):
    from checker.sandbox import Limits

    path = tmp_path / "attempt.py"
    path.write_text("import numpy as np\n\n\n" + source)
    return run_check(catalog.find(slug), path, Limits(**limits) if limits else None)


def test_a_missing_return_is_named(tmp_path):
    result = _check_source(tmp_path, "scores", f"def attention_scores(q, k):\n    scores = {SCORES_BODY}\n")
    assert result.status == "failed"
    assert "returned None: the function ends without returning its result (a missing `return`?)" in \
        result.failures[0].message


def test_a_signature_that_differs_from_the_stub_names_the_parameter(tmp_path):
    source = ("def causal_mask(n_q, n_k=None):\n    raise NotImplementedError\n\n\n"
              "def attention(q, k, v, causal=True, mask=None):\n    raise NotImplementedError\n")
    result = _check_source(tmp_path, "causal-mask", source)
    assert result.status == "error" and [t.name for t in result.tests] == ["signature"]
    assert "parameter 4 is `causal` where the stub has `mask`" in result.tests[0].message


def test_an_endless_loop_names_its_line(tmp_path):
    source = "def attention_scores(q, k):\n    total = 0\n    while True:\n        total += 1\n"
    result = _check_source(tmp_path, "scores", source, seconds=1.0)
    assert result.status == "timeout"
    assert "when stopped it was running" in result.tests[-1].message
    # stopped wherever it was: on the loop's body or on its jump back to `while True:`, both the loop's lines
    assert re.search(r"attempt\.py:(7 in attention_scores: total \+= 1|6 in attention_scores: while True:) \(an endless",
                     result.tests[-1].message), result.tests[-1].message
    assert "Stack (most recent call first)" not in result.output


def test_slow_for_loops_are_not_called_endless(tmp_path):
    source = ("def attention_scores(q, k):\n    total = 0\n    for i in range(10**12):\n        for j in range(3):\n"
              "            total += i * j\n    return total\n")
    result = _check_source(tmp_path, "scores", source, seconds=1.0)
    assert result.status == "timeout"
    message = result.tests[-1].message
    assert "inside for loops only, no while: most likely code too slow" in message and "endless loop?" not in message


def test_printing_too_much_is_not_called_an_exception(tmp_path):
    source = (f"def attention_scores(q, k):\n    for i in range(10**5):\n        print('row', i, 'of many rows')\n"
              f"    return {SCORES_BODY}\n")
    result = _check_source(tmp_path, "scores", source)
    message = result.failures[0].message
    assert "printed more than the checker keeps (1,000,000 bytes)" in message
    assert "OSError" not in message and "raised" not in message


def test_the_nan_tracer_traces_the_failing_call_itself():
    from checker.engine.proxy import SandboxSession
    from checker.engine.testkit import Failure, call_text

    traced = []

    class FakeSandbox:
        def trace(self, *call):
            traced.append(call[0])
            return None

    session = SandboxSession(FakeSandbox(), "katas/02_softmax.py", call_text, Failure)
    session.nonfinite_calls = [("softmax(x (2, 3))", ("first", (), {}, None)),
                               ("softmax(x (4, 5))", ("second", (), {}, None))]
    session.trace_nonfinite("softmax(x (4, 5)) returned NaN")
    session.trace_nonfinite("some message naming no call")
    assert traced == ["second", "first"]

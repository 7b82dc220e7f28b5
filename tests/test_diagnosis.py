"""What a failing learner sees: the weights drawn beside the right ones, and the line that made the first NaN."""

import json
import re

from click.testing import CliRunner

from checker.cli import cli
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

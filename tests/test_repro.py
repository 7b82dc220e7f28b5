"""`kata check ID --repro` (issue 24, point 3): the failing call as a snippet that, run in a fresh Python,
reproduces the value the check reported from the learner's own file; it holds the call's inputs and the
message, and nothing else of the hidden test (no expected array, no test code)."""

import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from checker.engine import catalog
from checker.cli import cli
from conftest import ZOO

CASES = [  # (kata, a failing file): small inline inputs, an .npz and a learner object, named axes, an error
    ("softmax", ZOO / "softmax" / "global-max.py"),
    ("kv-cache", ZOO / "kv-cache" / "cache-wrong-axis.py"),
    ("gqa", ZOO / "gqa" / "causal-ignored--always.py"),
    ("causal-mask", ZOO / "causal-mask" / "batch-transpose.py"),
]
NUMBER = r"(-?\d+\.?\d*(?:e[-+]?\d+)?)"


def reported(message):
    """What the message says came back: (kind, text)."""
    if " raised " in message:
        return "error", message.split(" raised ", 1)[1].split(":")[0]
    found = re.search(r"got " + NUMBER, message)
    if found:
        return "number", found.group(1)
    found = re.search(r"returned (?:\w+ of )?shape (\([\d, ]*\))", message)
    if found:
        return "shape", found.group(1)
    found = re.search(r"returned (\[[-\d., \[\]e]+\])", message)
    if found:
        return "values", found.group(1)
    raise AssertionError(f"the test cannot read what this message reports: {message}")


@pytest.mark.parametrize("slug, source", CASES, ids=lambda value: getattr(value, "stem", value))
def test_the_repro_reproduces_the_learners_own_output(workspace, slug, source):
    kata = catalog.find(slug)
    shutil.copy(source, workspace / "katas" / kata.filename)
    result = CliRunner().invoke(cli, ["check", kata.id, "--repro"])
    assert result.exit_code == 1 and "Repro of " in result.output, result.output
    snippet = workspace / ".kata" / "repro" / kata.filename
    code = snippet.read_text()
    message = " ".join(code.split("The checker said:\n", 1)[1].split("\nimport", 1)[0].replace("#", " ").split())
    assert message in " ".join(result.output.split())  # the message as the report shows it
    ran = subprocess.run([sys.executable, str(snippet)], capture_output=True, text=True, cwd="/", timeout=60)
    kind, text = reported(message)
    if kind == "error":
        assert ran.returncode == 1 and f"{text}:" in ran.stderr, ran.stderr
        return
    assert ran.returncode == 0, ran.stderr
    if kind == "number":
        printed = re.search(r"got\[[\d, ]*\] = " + NUMBER, ran.stdout)
        assert printed, ran.stdout
        digits = len(text.lstrip("-").replace(".", "").lstrip("0").split("e")[0])
        assert float(f"{float(printed.group(1)):.{digits}g}") == float(text), (printed.group(0), text)
    else:
        assert text.replace(" ", "") in ran.stdout.replace(" ", ""), (text, ran.stdout)


def test_the_repro_holds_the_inputs_and_the_message_and_no_more_of_the_test(workspace):
    kata = catalog.find("kv-cache")
    shutil.copy(ZOO / "kv-cache" / "cache-wrong-axis.py", workspace / "katas" / kata.filename)
    CliRunner().invoke(cli, ["check", kata.id, "--repro"])
    code = (workspace / ".kata" / "repro" / kata.filename).read_text()
    hidden = kata.hidden()
    assert "ref" not in re.findall(r"\b\w+\b", code) and "expected =" not in code
    assert not any(name in code for name in vars(hidden) if name.startswith("test_") and name[5:] not in code)
    from checker.practice.repro import SHOW

    assert len(code.replace(SHOW.strip(), "").splitlines()) < 40  # beside the fixed show() helper
    import numpy as np

    with np.load(workspace / ".kata" / "repro" / "05_kv_cache.npz") as inputs:
        assert all(name.startswith("a") for name in inputs.files)  # the call's arguments only


def test_repro_when_nothing_fails_or_with_all(workspace):
    assert "No repro" in CliRunner().invoke(cli, ["check", "02", "--repro"]).output  # the stub: no call made
    assert CliRunner().invoke(cli, ["check", "--all", "--repro"]).exit_code == 2

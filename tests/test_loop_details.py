"""The smaller things a learner met (issue 24, point 4): unreachable code below the stub's raise, a path
or a typo as kata id, `kata hint` without an id, kata 10's hints, warnings naming the learner's file,
one memory message, which workspace is used, one "Fix:" line per bug."""

import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from checker.engine import catalog
from checker.present import render
from checker.cli import cli
from checker.engine.runner import check
from checker.sandbox import Limits
from conftest import ZOO

SOFTMAX = catalog.find("softmax")


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input)


def test_code_below_the_stubs_raise_is_said_to_be_unreachable(workspace):
    path = workspace / "katas" / SOFTMAX.filename
    stub = path.read_text()
    raise_line = next(n for n, line in enumerate(stub.splitlines(), 1) if "raise NotImplementedError" in line)
    path.write_text(stub + "    return x / x.sum(axis=axis, keepdims=True)\n")  # written below the raise
    result = run("check", "02")
    assert result.exit_code == 1 and "NOT STARTED" in result.output
    assert f"Your code below line {raise_line} never runs" in result.output
    assert f"katas/{SOFTMAX.filename}:{raise_line}" in result.output and "Delete the raise" in result.output
    path.write_text(stub)  # the stub alone: the task, as before
    assert "never runs" not in run("check", "02").output


@pytest.mark.parametrize("key", ["katas/02_softmax.py", "./katas/02_softmax.py", "02_softmax.py"])
def test_a_kata_files_path_is_its_id(workspace, key):
    result = run("check", key)
    assert result.exit_code == 1 and "NOT STARTED" in result.output and "unknown kata" not in result.output


@pytest.mark.parametrize("typo, kata", [("sofmax", "02"), ("kv_cahce", "05"), ("mulit-head", "04")])
def test_a_typo_gets_the_nearest_kata(workspace, typo, kata):
    result = run("check", typo)
    assert result.exit_code == 2 and f"unknown kata '{typo}'" in result.output
    assert f"did you mean {catalog.find(kata)}" in result.output


def test_hint_without_an_id_hints_the_kata_you_are_on(workspace):
    shutil.copy(catalog.find("01").solution_path, workspace / "katas" / catalog.find("01").filename)
    run("check", "01")
    result = run("hint")
    assert result.exit_code == 0 and "Hint 1 of" in result.output and "kata hint 02" in result.output


def test_kata_10_after_a_fix_that_is_neither_the_plant_nor_its_fix(workspace):
    debug = catalog.find("debug")
    path = workspace / "katas" / debug.filename
    scores = "scores = q @ k_all.swapaxes(-1, -2)  # (b, h, t, n)"
    assert scores in path.read_text()  # the default draw plants missing-scale here
    path.write_text(path.read_text().replace(scores, "scores = q @ k_all.swapaxes(-1, -2) / np.sqrt(d_model)"))
    assert "cannot tell how many remain" in run("check", "10").output
    for _ in range(len(__import__("checker.engine.prompts").engine.prompts.for_kata(debug).hints)):  # the written hints first
        run("hint", "10")
    result = run("hint", "10")
    assert "neither the planted bug nor its fix" in result.output and "holds no planted bug" not in result.output
    # issue 36, point 5: the hint names the site, the function and its lines in the stub as planted
    planted = debug.stub_path.read_text().splitlines()
    line = next(number for number, text in enumerate(planted, 1) if scores in text)
    first = next(number for number, text in enumerate(planted, 1) if text.startswith("def cached_attention("))
    said = " ".join(result.output.split())
    assert f"in cached_attention (lines {first}-" in said and f"its planted edit at line {line})" in said, said


def test_kata_10_names_a_helper_an_edit_broke_that_held_no_plant(workspace):
    """The default draw plants nothing in KVCache: a cache that shares its state is named as that function."""
    debug = catalog.find("debug")
    shutil.copy(debug.folder / "uncatalogued" / "fix-shares-cache-state.py", workspace / "katas" / debug.filename)
    assert "cannot tell how many remain" in run("check", "10").output
    for _ in range(len(__import__("checker.engine.prompts").engine.prompts.for_kata(debug).hints)):
        run("hint", "10")
    said = " ".join(run("hint", "10").output.split())
    planted = debug.stub_path.read_text().splitlines()
    first = next(number for number, text in enumerate(planted, 1) if text.startswith("class KVCache"))
    assert f"in KVCache (lines {first}-" in said and "which held no planted bug" in said, said


def test_one_bug_left_reads_in_good_grammar():
    hints = catalog.find("debug").part("hints")
    (where, _) = hints.deeper({"remaining": [next(iter(hints.plants.BY_BUG))]}, lambda bug: "fix")
    assert where.startswith("The one bug left is in ")


def test_warnings_name_the_learners_file_not_the_sandbox(tmp_path):
    path = tmp_path / "02_softmax.py"
    path.write_text("import warnings\nimport numpy as np\n\ndef softmax(x, axis=-1):\n"
                    "    warnings.warn('careful')\n    e = np.exp(x - np.max(x, axis=axis, keepdims=True))\n"
                    "    return e / e.sum(axis=axis, keepdims=True)\n")
    result = check(SOFTMAX, path)
    assert f"{result.file}:5: UserWarning: careful" in result.output and "kata-sandbox" not in result.output


ALLOCATES = "import numpy as np\n\ndef softmax(x, axis=-1):\n    kept = []\n    while True:\n" \
            "        kept.append(np.ones(1_000_000))\n"


def test_running_out_of_memory_is_one_message_without_internal_frames(tmp_path):
    path = tmp_path / "02_softmax.py"
    path.write_text(ALLOCATES)
    result = check(SOFTMAX, path, Limits(memory_mb=150))
    (only,) = result.failures
    assert only.message.endswith("ran out of memory: the sandbox allows 150 MiB (a loop that keeps allocating, "
                                 "or a table too big?); the other checks were not run")
    assert all(frame[0] == 6 for frame in only.where)  # the learner's line, never the worker's
    for text in (render.check_text(result), render.check_text(result, watching=True),
                 render.check_text(result, verbose=True)):
        assert text.count("ran out of memory") == 1 and "worker.py" not in text and "exit code" not in text


def test_outside_any_workspace_kata_says_which_it_uses(tmp_path, monkeypatch):
    from checker.cli import common

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(common, "_WORKSPACE_SAID", [])
    result = run("list")
    assert f"no katas/ folder here or above {tmp_path}" in result.stderr and str(catalog.ROOT) in result.stderr
    assert json.loads(run("list", "--json").stdout)  # stdout stays the answer


def test_one_fix_line_per_bug():
    from checker.engine import prompts
    from checker.engine.results import Result, Status, TestOutcome

    failures = [TestOutcome(name, Status.FAILED, "global-max", f"{name} went wrong") for name in ("a", "b", "c")]
    result = Result("02", "softmax", "katas/02_softmax.py", Status.FAILED, failures, 0.1)
    text = click.unstyle(render.check_text(result, prompts.for_kata(SOFTMAX)))
    assert text.count("-> global-max") == 3 and text.count("Fix: ") == 1


def test_a_mocks_brief_names_the_mocks_file(workspace):
    from checker.engine import prompts
    from checker.engine.runner import display_path

    file = display_path(Path(".kata/mock") / SOFTMAX.filename)
    screen = render.mock_screen(SOFTMAX, prompts.for_kata(SOFTMAX), 60, file, 3)
    assert f"katas/{SOFTMAX.filename}" not in screen and f"in {file}" in screen

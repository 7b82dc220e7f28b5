"""Learner files that attack the checker: none may pass, hang, crash the CLI or break --json."""

import json
import subprocess
import sys

import pytest

from checker.engine import catalog
from checker.engine.runner import check
from checker.sandbox import Limits, warm
from conftest import HOSTILE

# file -> the status it must get: what the file does decides it, never the checker's luck
EXPECTED = {
    "patch_numpy": "failed",
    "exit_at_import": "error",
    "os_exit_at_import": "error",
    "os_exit_in_call": "error",
    "exit_in_call": "error",
    "keyboard_interrupt": "error",
    "fake_report": "failed",
    "loop_forever": "timeout",
    "loop_at_import": "timeout",
    "background_child": "error",  # the sandbox refuses it a process of its own
    "hog_memory": "error",
    "flood_output": "error",
    "garbage_on_channel": "error",
    "close_channel": "error",
    "returns_object": "failed",
    "syntax_error": "error",
}


def test_every_hostile_file_has_an_expectation():
    assert {path.stem for path in HOSTILE.glob("*.py")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_file_never_passes(name):
    limit = "0.5" if EXPECTED[name] == "timeout" else "20"  # short only where the file is meant to run out
    command = [sys.executable, "-m", "checker", "check", "01", "--file", str(HOSTILE / f"{name}.py"),
               "--json", "--timeout", limit]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)  # exactly one JSON object, nothing else on stdout
    assert report["status"] == EXPECTED[name], report
    assert report["kata"] == "01" and report["bugs"] == []
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_file_never_passes_forked_from_a_zygote(name):
    """The same files checked as `kata grade` and the test suite check them, each forked from this process's
    zygote: the same statuses, and this process carries on."""
    assert warm.current() is not None
    result = check(catalog.find("01"), HOSTILE / f"{name}.py", Limits(seconds=0.5 if EXPECTED[name] == "timeout" else 20))
    assert result.status == EXPECTED[name], result.to_json()
    assert result.bugs == []

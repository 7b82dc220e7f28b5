"""Kata files written in PyTorch: the same hidden tests, bug names and sandbox as NumPy files.

Each kata with a `torch/` folder holds `correct.py` (the reference's contract written as a PyTorch user
would: F.softmax, torch.tril, masked_fill, repeat_interleave, topk, searchsorted) and a file per catalogued
bug in its PyTorch form (`<bug-id>.py`: F.softmax on an all -inf row, `repeat` for `repeat_interleave`,
`tril` without its offset ...). One check a file; a torch child imports torch (~1.5 s of CPU), so these run
only where the torch extra is installed.
"""

import importlib.util
import os

import pytest

from checker.engine import catalog
from checker.engine.results import Status
from checker.engine.runner import check
from checker.sandbox import Limits
from checker.sandbox.torch_bridge import INSTALL_HINT, imports_torch

# A torch child imports torch within its time limit (~1.5 s of CPU): room for a loaded machine.
TORCH_LIMITS = Limits(seconds=60)

HAS_TORCH = importlib.util.find_spec("torch") is not None
FILES = [(kata, path) for kata in catalog.all_katas() for path in sorted((kata.folder / "torch").glob("*.py"))]


def test_every_kata_with_arrays_has_a_torch_reference_and_bug_files():
    folders = {kata.slug for kata, _ in FILES}
    assert {"scores", "softmax", "causal-mask", "multi-head", "kv-cache", "rope", "gqa", "flash", "sampling",
            "backward"} <= folders
    for kata, path in FILES:
        assert imports_torch(path.read_bytes()), path
        assert path.stem == "correct" or path.stem.split("--")[0] in catalog_ids(kata), \
            f"{path}: not a catalogued id of {kata}"


def catalog_ids(kata):
    return {path.stem.split("--")[0] for path in (kata.folder / "zoo").glob("*.py")}


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
@pytest.mark.parametrize("kata, path", FILES, ids=[f"{k.slug}/{p.stem}" for k, p in FILES])
def test_a_torch_file_gets_the_numpy_files_verdict(kata, path):
    result = check(kata, path, TORCH_LIMITS)
    assert result.frontend == "torch"
    failures = [(t.name, t.message) for t in result.failures]
    if path.stem == "correct":
        assert result.status == Status.PASSED, failures
    else:
        assert result.status == Status.FAILED, failures
        assert path.stem.split("--")[0] in result.bugs, (result.bugs, failures)  # `id--form`, as in zoo/
    # feedback in torch's words (checker/engine/torch_words.yaml): every message and fix, no NumPy spelling
    from checker.engine import prompts
    from test_torch_words import NUMPY_SPELLING

    fixes = prompts.for_kata(kata, result.frontend).fixes
    spoken = [(t.name, t.message, fixes.get(t.bug, "")) for t in result.failures]
    assert not [said for said in spoken if NUMPY_SPELLING.search(said[1] + " " + said[2])], spoken


def _numpy_file_that_tells_whether_torch_is_loaded(tmp_path, with_torch):
    file = tmp_path / "01_scores.py"
    file.write_text(("import torch\n" if with_torch else "") + "import sys\nimport numpy as np\n\n"
                    "def attention_scores(q, k):\n"
                    "    if 'torch' in sys.modules:\n"
                    "        raise RuntimeError('torch is loaded in this process')\n"
                    "    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)\n"
                    "    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])\n")
    return file


def test_a_numpy_file_is_checked_without_torch_in_its_process(tmp_path):
    result = check(catalog.find("01"), _numpy_file_that_tells_whether_torch_is_loaded(tmp_path, with_torch=False))
    assert result.status == Status.PASSED and result.frontend == "numpy", [t.message for t in result.failures]


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
def test_control_a_torch_file_does_see_torch_loaded(tmp_path):
    result = check(catalog.find("01"), _numpy_file_that_tells_whether_torch_is_loaded(tmp_path, with_torch=True),
                   TORCH_LIMITS)
    # the file's own RuntimeError on an in-contract input: a failed check that quotes it
    assert result.status == Status.FAILED and "torch is loaded" in result.tests[0].message


def test_without_torch_a_torch_file_gets_one_line_saying_how_to_install_it(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    file = tmp_path / "02_softmax.py"
    file.write_text("import torch\n\ndef softmax(x, axis=-1):\n    return torch.softmax(x, dim=axis)\n")
    result = check(catalog.find("02"), file)
    assert result.status == Status.ERROR and [t.message for t in result.tests] == [f"importing the file: {INSTALL_HINT}"]


@pytest.mark.parametrize("source, expected", [
    ("import torch", True), ("import numpy as np, torch.nn as nn", True), ("from torch import nn", True),
    ("import os\nfrom torch.nn import functional as F", True), ("# import torch", False),
    ("s = 'import torch'", False), ("import numpy as np\nx = 1, torch", False), ("import torchvision", False),
    ("x = (" * 5000, False),  # unbalanced: the tokenizer's error, not a crash
])
def test_a_file_is_torch_when_its_code_imports_torch(source, expected):
    assert imports_torch(source.encode()) is expected


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
def test_the_torch_child_reads_torch_and_nothing_else_of_site_packages(tmp_path):
    import sysconfig

    site = sysconfig.get_paths()["purelib"]
    file = tmp_path / "01_scores.py"
    file.write_text("import os\nimport torch\n\n"
                    "def attention_scores(q, k):\n"
                    f"    os.listdir({site + '/torch'!r})\n"
                    f"    os.listdir({site!r})  # the other packages: refused\n")
    assert os.listdir(site + "/torch") and os.listdir(site), "control: both folders can be listed outside the sandbox"
    result = check(catalog.find("01"), file, TORCH_LIMITS)
    messages = [t.message for t in result.tests]
    assert result.status == Status.ERROR and all(f"Permission denied: '{site}'" in m for m in messages), messages


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
def test_a_hiring_round_takes_torch_files_and_the_page_says_which(tmp_path, monkeypatch):
    import json
    import shutil
    import subprocess
    import sys

    from click.testing import CliRunner

    from checker.cli import cli

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    chosen = [catalog.find(key) for key in ("01", "05", "09")]
    packed = runner.invoke(cli, ["pack", "ada", "--katas", ",".join(k.id for k in chosen), "--seed", "4"])
    assert packed.exit_code == 0, packed.output
    for kata in chosen:
        shutil.copy(kata.folder / "torch" / "correct.py", tmp_path / "ada" / "katas" / kata.filename)
    public = subprocess.run([sys.executable, "check.py"], cwd=tmp_path / "ada", capture_output=True, text=True,
                            timeout=300)
    assert public.returncode == 0 and public.stdout.count(" ok") == 3, public.stdout + public.stderr
    graded = runner.invoke(cli, ["grade", "ada", "--timeout", "60", "--json", "--html", "page.html"])
    checks = json.loads(graded.output)["workspaces"][0]["katas"]
    assert [(c["status"], c["frontend"]) for c in checks] == [("passed", "torch")] * 3, graded.output
    assert (tmp_path / "page.html").read_text().count("written in PyTorch") >= 3

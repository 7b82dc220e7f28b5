"""README's "Adding a kata", followed literally: a made-up kata 99 (slug `dot`) added to a copy of the
project, then `kata dev check`, `kata check`, its self-checks and `kata pack` on it. The addition touches
only the kata's own files and its block of prompts.yaml.

`kata` is `python -m checker` run in the copy, so the copy's own checker is the one that runs.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checker.engine.catalog import ROOT


REFERENCE = '''\
"""Kata 99: a dot product (made up by the project's tests)."""

import numpy as np


def dot(a, b):
    """The dot product of two vectors.

    Args:
        a: float array (n,).
        b: float array (n,).

    Returns:
        A float: the sum of a[i] * b[i].

    Example:
        >>> dot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        11.0
    """
{body}
'''
SOLVED = "    return float(np.sum(np.asarray(a, float) * np.asarray(b, float)))"
STUB = '    # TODO: multiply a and b elementwise, then sum the products.\n    raise NotImplementedError("kata 99: write dot")'

FOLDER = {
    "__init__.py": '"""Kata dot: its hidden tests, buggy variants, quiz answers, public checks and zoo."""\n',
    "tests.py": '''\
"""Hidden tests for kata 99: dot(a, b)."""

import numpy as np

from checker.engine.testkit import Failure, bug, call_text

API = {"dot": ("a", "b")}


@bug("dot-no-sum")
def test_returns_a_number(kata, ref, rng):
    a, b = rng.normal(size=4), rng.normal(size=4)
    got = kata.dot(a, b)
    if np.ndim(got) != 0:
        raise Failure(f"{call_text('dot', a=a, b=b)} returned shape {np.shape(got)}, expected a number",
                      bug="dot-no-sum")


def test_value(kata, ref, rng):
    a, b = rng.normal(size=5), rng.normal(size=5)
    got, want = kata.dot(a, b), ref.dot(a, b)
    if np.shape(got) != () or not np.isclose(got, want):
        raise Failure(f"{call_text('dot', a=a, b=b)} returned {got}, expected {want:.4g}")
''',
    "variants.py": '''\
"""What code carrying each catalogued bug of kata 99 computes."""

import numpy as np

from checker.engine.testkit import variant


@variant("dot-no-sum")
def _products(a, b):
    """the products were never summed"""
    return np.asarray(a, float) * np.asarray(b, float)
''',
    "quiz.py": '''\
"""The answers of kata 99's quiz questions."""


def dot_of_ones(n):
    return n
''',
    "public.py": '''\
"""The public checks of kata 99, copied into a candidate's check.py by `kata pack`."""

from checker.hiring.pack import distinct
from checker.hiring.pack_check import expect_shape, random_array


def cases(draw):
    return [{"n": n} for n in distinct(draw, 2)]


def check(module, dims):
    n = dims["n"]
    expect_shape(f"dot(a ({n},), b ({n},))", module.dot(random_array(n), random_array(n)), ())
''',
    "zoo/dot-no-sum.py": "import numpy as np\n\n\ndef dot(a, b):\n    return np.asarray(a) * np.asarray(b)\n",
    "correct/sum_of_products.py": "import numpy as np\n\n\ndef dot(a, b):\n    return float((np.asarray(a) * b).sum())\n",
    "correct/np_dot.py": "import numpy as np\n\n\ndef dot(a, b):\n    return float(np.dot(a, b))\n",
    "correct/loop.py": "def dot(a, b):\n    return float(sum(float(x) * float(y) for x, y in zip(a, b)))\n",
    "uncatalogued/off_by_one.py": "import numpy as np\n\n\ndef dot(a, b):\n    return float(np.dot(a, b)) + 1.0\n",
}

CHOICES = "\n".join(f'''\
      - id: dot-choice-{number}
        kind: choice
        prompt: Question {number} about a dot product?
        choices:
          - text: The right answer {number}.
            correct: true
          - text: A wrong answer {number}.
        explanation: Because it is made up.''' for number in range(7))

PROMPTS_BLOCK = f'''\
  dot:
    title: Dot product
    brief: |
      Write dot(a, b) in katas/99_dot.py: the sum of a[i] * b[i].
    hints:
      - Multiply a and b elementwise.
      - Then sum the products.
      - np.sum(a * b), as a float.
    bugs:
      dot-no-sum:
        fix: sum the products into one number.
    questions:
      - id: dot-of-ones
        kind: templated
        prompt: What is the dot product of two vectors of {{n}} ones?
        draw: {{n: [2, 3, 5]}}
        answer: dot_of_ones
        explanation: Each of the {{n}} products is 1.
{CHOICES}
'''


def kata(copy, *args):
    """`kata ARGS` in the copy of the project."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"} | {"NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "checker", *map(str, args)], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=120)


def git(copy, *args):
    return subprocess.run(["git", "-C", str(copy), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """The project as it is now (committed or not), in a git repository of its own."""
    copy = tmp_path_factory.mktemp("project")
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "the project")
    return copy


@pytest.fixture(scope="module")
def added(copy):
    """Kata 99 added by README's steps 1 to 4."""
    (copy / "solutions" / "99_dot.py").write_text(REFERENCE.format(body=SOLVED))  # 1
    (copy / "katas" / "99_dot.py").write_text(REFERENCE.format(body=STUB))  # 2
    (copy / "checker" / "hidden" / "dot").mkdir(parents=True)
    (copy / "checker" / "hidden" / "dot" / "stub.py").write_text(REFERENCE.format(body=STUB))
    for name, text in FOLDER.items():  # 3
        path = copy / "checker" / "hidden" / "dot" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    with (copy / "prompts.yaml").open("a") as prompts:  # 4
        prompts.write(PROMPTS_BLOCK)
    return copy


def test_dev_check_finds_nothing_missing(added):
    done = kata(added, "dev", "check", "99")  # 5
    assert done.returncode == 0, done.stdout + done.stderr
    assert "99 dot  ok" in done.stdout


def test_the_checker_checks_it(added):
    checks = {name: json.loads(kata(added, "check", "99", "--file", path, "--json").stdout)
              for name, path in [("reference", "solutions/99_dot.py"), ("zoo", "checker/hidden/dot/zoo/dot-no-sum.py"),
                                 ("uncatalogued", "checker/hidden/dot/uncatalogued/off_by_one.py")]}
    assert checks["reference"]["status"] == "passed"
    assert checks["zoo"]["status"] == "failed" and checks["zoo"]["bugs"] == ["dot-no-sum"]
    assert checks["uncatalogued"]["status"] == "failed" and checks["uncatalogued"]["bugs"] == []
    stub = kata(added, "check", "99")
    assert stub.returncode == 1 and "NOT STARTED" in stub.stdout


def test_pytest_k_slug_picks_its_self_checks_only(added):
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "--collect-only", "tests/test_selfcheck.py",
                           "-k", "dot"], cwd=added, capture_output=True, text=True, timeout=300)  # 6
    picked = [line for line in done.stdout.splitlines() if "::" in line]
    assert done.returncode == 0 and picked, done.stdout[-3000:]
    assert all("dot" in line for line in picked)  # the checks themselves: kata check above, on every file


def test_every_proving_file_gets_its_verdict(added):
    folder = Path("checker/hidden/dot")
    for path in sorted((added / folder / "correct").glob("*.py")):
        assert kata(added, "check", "99", "--file", folder / "correct" / path.name).returncode == 0, path.name


def test_the_addition_touches_the_kata_and_its_prompts_block_only(added):
    changed = git(added, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(line[3:] for line in changed) == sorted(
        ["katas/99_dot.py", "solutions/99_dot.py", "prompts.yaml"]
        + [f"checker/hidden/dot/{name}" for name in [*FOLDER, "stub.py"]])
    diff = git(added, "diff", "-U0", "prompts.yaml").splitlines()
    assert [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")] == \
        PROMPTS_BLOCK.splitlines()
    assert not [line for line in diff if line.startswith("-") and not line.startswith("---")]


def test_it_packs(added, tmp_path):
    done = kata(added, "pack", tmp_path / "ada", "--katas", "99", "--seed", 1)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stdout + done.stderr
    shutil.copy(added / "solutions" / "99_dot.py", tmp_path / "ada" / "katas" / "99_dot.py")
    public = subprocess.run([sys.executable, "check.py"], cwd=tmp_path / "ada", capture_output=True, text=True)
    assert public.returncode == 0 and "99 dot" in public.stdout and "ok" in public.stdout, public.stdout


def test_dev_check_lists_what_is_missing(added, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(added, broken, ignore=shutil.ignore_patterns(".git"))
    (broken / "checker" / "hidden" / "dot" / "zoo" / "dot-no-sum.py").unlink()
    (broken / "checker" / "hidden" / "dot" / "correct" / "loop.py").unlink()
    (broken / "checker" / "hidden" / "dot" / "quiz.py").write_text("")
    stub = broken / "katas" / "99_dot.py"
    stub.write_text(stub.read_text().replace("def dot(a, b):", "def dot(a, b, axis=-1):"))
    reference = broken / "solutions" / "99_dot.py"
    reference.write_text(reference.read_text().replace("        11.0\n", "        12.0\n"))
    prompts = broken / "prompts.yaml"
    prompts.write_text(prompts.read_text().replace("      - np.sum(a * b), as a float.\n", ""))
    done = kata(broken, "dev", "check", "dot")
    assert done.returncode == 1, done.stdout + done.stderr
    for words in ["no zoo file checker/hidden/dot/zoo/dot-no-sum.py", "2 correct variant(s)",
                  "no function dot_of_ones() in checker/hidden/dot/quiz.py", "2 hint(s)",
                  "dot: the stub's signature (a, b, axis=-1) is not the reference's (a, b)",
                  "a docstring example of dot fails", "variant _products (dot-no-sum): no zoo file"]:
        assert words in done.stdout, done.stdout

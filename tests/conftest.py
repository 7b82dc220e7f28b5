"""Shared pieces of the project's own tests."""

import importlib.util
import os

# Small arrays: BLAS threads in each test process (one per xdist worker) would only fight each other and
# the sandboxes' children for the cores. Set before anything imports NumPy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.pop("COLUMNS", None)  # pytest-xdist's workers set 80; a test that wants a width says so
# the team keys `kata pack` makes are remembered per user (checker/hiring/roster.py): the tests' in a folder
# of their own, not the user's
os.environ.setdefault("KATA_STATE_HOME", os.path.join(__import__("tempfile").gettempdir(), "kata-tests-state"))
from functools import lru_cache
from pathlib import Path

import pytest

from checker.engine import catalog
from checker.engine.runner import DEFAULT_SEED, check

TESTS = Path(__file__).parent
XDIST = importlib.util.find_spec("xdist") is not None  # pyproject's addopts ask for `-n auto --dist loadscope`


def pytest_addoption(parser):
    """Without pytest-xdist (a pytest installed on its own, not the `test` extra), its two options are taken
    and the suite runs in one process, said once, instead of a usage error."""
    if not XDIST:
        group = parser.getgroup("xdist", "pytest-xdist is not installed: the suite runs in one process")
        # `_addoption`: pytest reserves lowercase short options for plugins, which register them this way (xdist too)
        group._addoption("-n", "--numprocesses", dest="numprocesses", default=None, help="ignored without pytest-xdist")
        group.addoption("--dist", dest="dist", default="no", help="ignored without pytest-xdist")


def pytest_report_header(config):
    if not XDIST:
        return "pytest-xdist is not installed: one process (pip install -e \".[test]\" runs the suite on every core)"
HOSTILE = TESTS / "hostile"


class KataFiles:
    """One kind of proving file, kept in each kata's folder: `ZOO / "softmax" / "global-max.py"`."""

    def __init__(self, kind):
        self.kind = kind

    def __truediv__(self, kata_key):
        return catalog.find(kata_key).folder / self.kind


ZOO, CORRECT = KataFiles("zoo"), KataFiles("correct")
UNCATALOGUED = KataFiles("uncatalogued")  # bugs outside the catalogue: must fail, and be named as nothing


def bug_of(path):
    """A zoo file's bug id: its name before any `--form` suffix."""
    return path.stem.split("--")[0]


@lru_cache(maxsize=None)
def checked(kata, path, seed=DEFAULT_SEED):
    """The checker's result for one file (and seed), computed once per test session."""
    return check(kata, path, seed=seed)


PREFETCH_THREADS = 3 if "PYTEST_XDIST_WORKER" not in os.environ else 2  # each check mostly waits on its child


@lru_cache(maxsize=None)
def prefetch(kata, jobs):
    """Check one kata's files, (path, seed) each, a few at a time, into `checked`'s cache; once per kata."""
    from concurrent.futures import ThreadPoolExecutor  # only the self-checks need it

    with ThreadPoolExecutor(max_workers=PREFETCH_THREADS) as pool:
        list(pool.map(lambda job: checked(kata, *job), jobs))


@pytest.fixture(scope="session", autouse=True)
def warm_sandboxes():
    """Every check of this test process (one xdist worker) forks its child from one zygote, as each
    `kata grade` worker does; tests of the plain path ask for it (`Sandbox(..., zygote=False)`). And the
    reference's plain answers are remembered across checks (checker/engine/refmemo.py)."""
    from checker.engine import refmemo
    from checker.sandbox import warm

    warm.enable()
    refmemo.enable()  # the reference's answers, asked again by every file checked under one seed, kept
    yield
    refmemo.disable()
    warm.disable()


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A fresh learner workspace (katas/ holding the stubs) as the current folder."""
    (tmp_path / "katas").mkdir()
    for kata in catalog.all_katas():
        (tmp_path / "katas" / kata.filename).write_text(kata.stub_path.read_text())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path

# Kata 08's reference with a wait on the memory check's big calls (12,288 keys): right numbers, too slow.
SLOW_ON_BIG = """

import time as _time

_tiled = flash_attention


def flash_attention(q, k, v, block_size=64, causal=False, mask=None):
    if k.shape[-2] >= 8192:  # the memory check's big calls only: right numbers, far too slow
        _time.sleep(60)
    return _tiled(q, k, v, block_size, causal, mask)
"""

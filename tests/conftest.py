"""Shared pieces of the project's own tests."""

from functools import lru_cache
from pathlib import Path

import pytest

from checker import catalog
from checker.runner import DEFAULT_SEED, check

TESTS = Path(__file__).parent
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


def files_in(kind):
    """(kata, path) for every file of one kind (ZOO, CORRECT, UNCATALOGUED) in every kata, as pytest params."""
    return [pytest.param(kata, path, id=f"{kata.slug}/{path.stem}")
            for kata in catalog.all_katas() for path in kata.files(kind.kind)]


@lru_cache(maxsize=None)
def checked(kata, path, seed=DEFAULT_SEED):
    """The checker's result for one file (and seed), computed once per test session."""
    return check(kata, path, seed=seed)


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A fresh learner workspace (katas/ holding the stubs) as the current folder."""
    (tmp_path / "katas").mkdir()
    for kata in catalog.all_katas():
        (tmp_path / "katas" / kata.filename).write_text(kata.stub_path.read_text())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path

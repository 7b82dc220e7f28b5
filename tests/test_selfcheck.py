"""The checker checks itself: each kata has all its pieces (`kata dev check`), its reference passes,
its stub is not started, every zoo file fails and is named, every correct variant passes, and every
hidden test is proven by a file it catches.

Every test here is one kata's: `pytest -k SLUG` runs that kata's only, and the first of them checks
that kata's files, and no other kata's.
"""

import zlib
from functools import lru_cache

import pytest

from checker import catalog, devcheck, prompts
from checker.runner import DEFAULT_SEED, hidden_tests
from checker.results import Status
from conftest import CORRECT, UNCATALOGUED, ZOO, bug_of, checked, files_in, per_kata, prefetch

KATAS = [per_kata(kata) for kata in catalog.all_katas()]


def other_seed(path):
    """The seed besides DEFAULT_SEED that an honest file (a correct variant, a reference) is checked under: a
    hiring grade draws its own seed, so honest code must pass whatever the draw. Drawn from the file's name:
    each file meets inputs of its own (more draws covered than with one shared seed), the same in every run."""
    seed = 1 + zlib.crc32(path.name.encode()) % 999_983
    return seed if seed != DEFAULT_SEED else seed + 1


@lru_cache(maxsize=None)
def jobs_of(kata):
    """(path, seed) of every check the kata's self-checks read: each proving file, the stub and the reference
    under DEFAULT_SEED, and each honest file under its other seed too."""
    honest = kata.files("correct") + [kata.solution_path]
    jobs = [(path, DEFAULT_SEED) for path in kata.files("zoo") + kata.files("uncatalogued") + honest]
    return tuple(jobs + [(kata.stub_path, DEFAULT_SEED)] + [(path, other_seed(path)) for path in honest])


def result_of(kata, path, seed=DEFAULT_SEED):
    """The check of one of the kata's files, after checking all of them at once (the first time)."""
    prefetch(kata, jobs_of(kata))
    return checked(kata, path, seed)


def _explain(result):
    return "\n".join(f"{t.name}: {t.outcome} [{t.bug}] {t.message}" for t in result.tests if t.outcome != "passed")


@pytest.mark.parametrize("kata", KATAS)
def test_dev_check_finds_nothing_missing(kata):
    report = devcheck.check_kata(kata)
    assert report.ok, "\n".join(report.problems)


@pytest.mark.parametrize("kata", KATAS)
def test_reference_passes(kata):
    result = result_of(kata, kata.solution_path)
    assert result.status == Status.PASSED, _explain(result)


@pytest.mark.parametrize("kata", KATAS)
def test_stub_is_not_started(kata):
    """A stub raises NotImplementedError; a kata whose stub is a planted file (kata 10) fails instead."""
    result = result_of(kata, kata.stub_path)
    planted = getattr(kata.hidden(), "STUB_PLANTED", False)
    assert result.status == (Status.FAILED if planted else Status.NOT_STARTED), _explain(result)
    assert result.bugs == []


@pytest.mark.parametrize("kata, path", files_in(ZOO))
def test_zoo_file_fails_and_is_named_first(kata, path):
    result = result_of(kata, path)
    assert result.status == Status.FAILED, _explain(result)
    assert result.bugs[:1] == [bug_of(path)], _explain(result)


@pytest.mark.parametrize("kata, path", files_in(UNCATALOGUED))
def test_uncatalogued_bug_fails_unnamed(kata, path):
    result = result_of(kata, path)
    assert result.status in (Status.FAILED, Status.ERROR), _explain(result)
    assert result.bugs == [], _explain(result)


@pytest.mark.parametrize("kata, path", files_in(ZOO) + files_in(CORRECT) + files_in(UNCATALOGUED))
def test_no_result_confuses_the_checker(kata, path):
    result = result_of(kata, path)
    assert not [t for t in result.tests if t.message.startswith("could not check")], _explain(result)


@pytest.mark.parametrize("kata, path", files_in(CORRECT))
def test_correct_variant_passes(kata, path):
    result = result_of(kata, path)
    assert result.status == Status.PASSED, _explain(result)


@pytest.mark.parametrize("kata, path", files_in(CORRECT) + [per_kata(k, k.solution_path, id=f"{k.slug}/reference")
                                                             for k in catalog.all_katas()])
def test_correct_code_passes_under_another_seed(kata, path):
    """A hiring grade draws its own seed: honest code must pass whatever the draw (see other_seed)."""
    result = result_of(kata, path, other_seed(path))
    assert result.status == Status.PASSED, _explain(result)


@pytest.mark.parametrize("kata", KATAS)
def test_every_hidden_test_catches_a_zoo_file(kata):
    """A test that no buggy file fails could not fail; a marked test must name its own bug somewhere.

    Only a failure counts: a file that crashes, or times out, in a test proves nothing about its check.
    """
    results = [result_of(kata, path) for path in kata.files("zoo") + kata.files("uncatalogued")]
    unproven = []
    for test in hidden_tests(kata.hidden()):
        name = test.__name__.removeprefix("test_")
        failures = [t for result in results for t in result.tests if t.name == name and t.outcome == Status.FAILED]
        if getattr(test, "bug", None) and not any(t.bug == test.bug for t in failures):
            unproven.append(f"{name} never names {test.bug}")
        elif not failures:
            unproven.append(f"no zoo or uncatalogued file fails {name} (crashing in it does not count)")
    assert not unproven, "\n".join(unproven)


@pytest.mark.parametrize("kata", KATAS)
def test_named_bugs_are_catalogued(kata):
    catalogued = set(prompts.for_kata(kata).fixes)
    results = [result_of(kata, path) for path in kata.files("zoo")]
    assert {bug for result in results for bug in result.bugs} <= catalogued

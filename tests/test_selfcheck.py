"""The checker checks itself: references pass, stubs are not started, every zoo file fails and is
named, every correct variant passes, and every hidden test is proven by a file it catches."""

import pytest

from checker import catalog, prompts
from checker.runner import hidden_tests
from conftest import CORRECT, UNCATALOGUED, ZOO, bug_of, checked, files_in

KATAS = catalog.all_katas()


@pytest.fixture(scope="module", autouse=True)
def checked_in_parallel():
    """Check every file once, a few at a time: each check waits on its own child process."""
    from concurrent.futures import ThreadPoolExecutor

    files = [param.values for folder in (ZOO, CORRECT, UNCATALOGUED) for param in files_in(folder)]
    files += [(kata, path) for kata in KATAS for path in (kata.solution_path, kata.stub_path)]
    files += [(kata, path, seed) for kata, path in files_in_other_seeds() for seed in OTHER_SEEDS]
    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda args: checked(*args), files))


OTHER_SEEDS = [99991]


def files_in_other_seeds():
    """Correct code, and each reference: it must pass whatever seed a hiring grade draws."""
    return [param.values for param in files_in(CORRECT)] + [(kata, kata.solution_path) for kata in KATAS]


def _explain(result):
    return "\n".join(f"{t.name}: {t.outcome} [{t.bug}] {t.message}" for t in result.tests if t.outcome != "passed")


@pytest.mark.parametrize("kata", KATAS, ids=str)
def test_reference_passes(kata):
    result = checked(kata, kata.solution_path)
    assert result.status == "passed", _explain(result)


@pytest.mark.parametrize("kata", KATAS, ids=str)
def test_stub_is_not_started(kata):
    """A stub raises NotImplementedError; a kata whose stub is a planted file (kata 10) fails instead."""
    result = checked(kata, kata.stub_path)
    planted = getattr(kata.hidden(), "STUB_PLANTED", False)
    assert result.status == ("failed" if planted else "not-started"), _explain(result)
    assert result.bugs == []


@pytest.mark.parametrize("kata, path", files_in(ZOO))
def test_zoo_file_fails_and_is_named_first(kata, path):
    result = checked(kata, path)
    assert result.status == "failed", _explain(result)
    assert result.bugs[:1] == [bug_of(path)], _explain(result)


@pytest.mark.parametrize("kata, path", files_in(UNCATALOGUED))
def test_uncatalogued_bug_fails_unnamed(kata, path):
    result = checked(kata, path)
    assert result.status in ("failed", "error"), _explain(result)
    assert result.bugs == [], _explain(result)


@pytest.mark.parametrize("kata, path", files_in(ZOO) + files_in(CORRECT) + files_in(UNCATALOGUED))
def test_no_result_confuses_the_checker(kata, path):
    result = checked(kata, path)
    assert not [t for t in result.tests if t.message.startswith("could not check")], _explain(result)


@pytest.mark.parametrize("kata, path", files_in(CORRECT))
def test_correct_variant_passes(kata, path):
    result = checked(kata, path)
    assert result.status == "passed", _explain(result)


@pytest.mark.parametrize("seed", OTHER_SEEDS)
@pytest.mark.parametrize("kata, path", files_in(CORRECT) + [pytest.param(k, k.solution_path, id=f"{k.slug}/reference")
                                                             for k in KATAS])
def test_correct_code_passes_under_other_seeds(kata, path, seed):
    """A hiring grade draws its own seed: honest code must pass whatever the draw."""
    result = checked(kata, path, seed)
    assert result.status == "passed", _explain(result)


@pytest.mark.parametrize("kata", KATAS, ids=str)
def test_every_catalogued_bug_has_a_zoo_file(kata):
    catalogued = set(prompts.for_kata(kata).fixes)
    assert {bug_of(path) for path in kata.files("zoo")} == catalogued


@pytest.mark.parametrize("kata", KATAS, ids=str)
def test_at_least_three_correct_variants(kata):
    assert len(kata.files("correct")) >= 3


@pytest.mark.parametrize("kata", KATAS, ids=str)
def test_every_hidden_test_catches_a_zoo_file(kata):
    """A test that no buggy file fails could not fail; a marked test must name its own bug somewhere."""
    buggy = kata.files("zoo") + kata.files("uncatalogued")
    results = [checked(kata, path) for path in buggy]
    for test in hidden_tests(kata.hidden()):
        name = test.__name__.removeprefix("test_")
        outcomes = [t for result in results for t in result.tests if t.name == name]
        if getattr(test, "bug", None):
            assert any(t.outcome == "failed" and t.bug == test.bug for t in outcomes), \
                f"{name} never names {test.bug}"
        else:
            assert any(t.outcome != "passed" for t in outcomes), f"no zoo file fails {name}"


@pytest.mark.parametrize("kata", KATAS, ids=str)
def test_named_bugs_are_catalogued(kata):
    catalogued = set(prompts.for_kata(kata).fixes)
    results = [checked(kata, path) for path in kata.files("zoo")]
    assert {bug for result in results for bug in result.bugs} <= catalogued

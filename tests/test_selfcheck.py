"""The checker checks itself: each kata has all its pieces (`kata dev check`), its reference passes,
its stub is not started, every zoo file fails and is named, every correct variant passes, and every
hidden test is proven by a file it catches.

Every test here is one kata's, in that kata's class (TestScores, TestKvCache, ...): `pytest -k SLUG` runs
that kata's only, the first of them checks that kata's files and no other kata's, and under xdist
(`--dist loadscope`) a class runs in one worker, so each kata's files are checked once.
"""

import zlib
from functools import lru_cache

import pytest

from checker.engine import catalog, devcheck, prompts
from checker.engine.runner import DEFAULT_SEED, hidden_tests
from checker.engine.results import Status
from conftest import bug_of, checked, prefetch


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


class SelfChecks:
    """One kata's self-checks; a subclass per kata is made below, `kata` being its kata."""

    kata = None

    def test_dev_check_finds_nothing_missing(self, kata):
        report = devcheck.check_kata(kata)
        assert report.ok, "\n".join(report.problems)

    def test_reference_passes(self, kata):
        result = result_of(kata, kata.solution_path)
        assert result.status == Status.PASSED, _explain(result)

    def test_stub_is_not_started(self, kata):
        """A stub raises NotImplementedError; a kata whose stub is a planted file (kata 10) fails instead."""
        result = result_of(kata, kata.stub_path)
        planted = getattr(kata.hidden(), "STUB_PLANTED", False)
        assert result.status == (Status.FAILED if planted else Status.NOT_STARTED), _explain(result)
        assert result.bugs == []

    def test_zoo_file_fails_and_is_named_first(self, kata, zoo):
        result = result_of(kata, zoo)
        assert result.status == Status.FAILED, _explain(result)
        assert result.bugs[:1] == [bug_of(zoo)], _explain(result)

    def test_uncatalogued_bug_fails_unnamed(self, kata, uncatalogued):
        result = result_of(kata, uncatalogued)
        assert result.status in (Status.FAILED, Status.ERROR), _explain(result)
        assert result.bugs == [], _explain(result)

    def test_no_result_confuses_the_checker(self, kata, proving):
        result = result_of(kata, proving)
        assert not [t for t in result.tests if t.message.startswith("could not check")], _explain(result)

    def test_correct_variant_passes(self, kata, correct):
        result = result_of(kata, correct)
        assert result.status == Status.PASSED, _explain(result)

    def test_correct_code_passes_under_another_seed(self, kata, honest):
        """A hiring grade draws its own seed: honest code must pass whatever the draw (see other_seed)."""
        result = result_of(kata, honest, other_seed(honest))
        assert result.status == Status.PASSED, _explain(result)

    def test_every_hidden_test_catches_a_zoo_file(self, kata):
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

    def test_named_bugs_are_catalogued(self, kata):
        catalogued = set(prompts.for_kata(kata).fixes)
        results = [result_of(kata, path) for path in kata.files("zoo")]
        assert {bug for result in results for bug in result.bugs} <= catalogued


FILES = {  # a test's parameter -> the files of the class's kata it takes, one test each
    "zoo": lambda kata: kata.files("zoo"),
    "uncatalogued": lambda kata: kata.files("uncatalogued"),
    "correct": lambda kata: kata.files("correct"),
    "proving": lambda kata: kata.files("zoo") + kata.files("correct") + kata.files("uncatalogued"),
    "honest": lambda kata: kata.files("correct") + [kata.solution_path],
}


def pytest_generate_tests(metafunc):
    """Every test of a kata's class takes its kata (its id the slug, for `-k SLUG`), and some one of its files."""
    kata = getattr(metafunc.cls, "kata", None)
    if kata is None:
        return
    parameter = next((name for name in FILES if name in metafunc.fixturenames), None)
    if parameter is None:
        metafunc.parametrize("kata", [kata], ids=[kata.slug])
        return
    files = FILES[parameter](kata)
    names = ["reference" if path == kata.solution_path else path.stem for path in files]
    metafunc.parametrize(("kata", parameter), [(kata, path) for path in files],
                         ids=[f"{kata.slug}/{name}" for name in names])


for _kata in catalog.all_katas():  # TestScores, TestKvCache, ...: one class a kata
    _name = "Test" + "".join(part.title() for part in _kata.slug.split("-"))
    globals()[_name] = type(_name, (SelfChecks,), {"kata": _kata, "__doc__": f"The self-checks of kata {_kata}."})

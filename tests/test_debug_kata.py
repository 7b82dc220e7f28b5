"""Kata 10 counts the planted bugs that remain, from what the file computes: every plant alone, every pair,
and sampled fours are counted right, whatever else is planted beside them."""

import itertools
import random

import numpy as np
import pytest

from checker.engine import catalog, prompts
from checker.hidden.debug import plants, probes
from checker.engine.runner import DEFAULT_SEED
from conftest import checked

KATA = catalog.find("debug")
SITE = {plant.bug: plant.site for plant in plants.POOL}
PAIRS = [pair for pair in itertools.combinations(plants.BY_BUG, 2) if SITE[pair[0]] != SITE[pair[1]]]


def _remaining(bugs, planted):
    with np.errstate(all="ignore"):  # the planted overflows are the point
        return probes.remaining(plants.module_with(tuple(sorted(bugs))), tuple(sorted(planted)))


def test_the_stub_is_the_clean_decoder_with_the_default_plants():
    assert KATA.stub_path.read_text() == plants.source_with(plants.DEFAULT)
    assert plants.planted(DEFAULT_SEED, DEFAULT_SEED) == plants.DEFAULT


def test_the_pool_has_ten_sites_and_every_plant_applies():
    assert len(plants.BY_BUG) >= 10 and len(set(SITE.values())) >= plants.PLANTED
    for bug in plants.BY_BUG:
        assert plants.source_with([bug]) != plants.clean_source()


def test_a_planted_file_reads_naturally():
    """No comment or name gives a plant away: the lines a plant writes hold no bug id and no word of alarm."""
    for plant in plants.POOL:
        written = "".join(planted for _, planted in plant.edits).lower()
        assert plant.bug not in written
        assert not any(word in written for word in ("bug", "wrong", "fixme", "todo", "oops"))


@pytest.mark.parametrize("bug", sorted(plants.BY_BUG))
def test_every_plant_alone_is_counted(bug):
    others = [b for b in plants.BY_BUG if SITE[b] != SITE[bug]][:3]
    assert _remaining([bug], [bug, *others]) == [bug]
    assert _remaining([], [bug, *others]) == []


def test_every_pair_is_counted():
    for pair in PAIRS:
        for size in range(3):
            for left in itertools.combinations(pair, size):
                assert _remaining(left, pair) == sorted(left), (pair, left)


def test_sampled_draws_of_four_are_counted():
    for seed in random.Random(7).sample(range(10**6), 6):
        planted = plants.draw(seed)
        assert len(set(planted)) == plants.PLANTED == len({SITE[bug] for bug in planted})
        for size in range(plants.PLANTED + 1):
            for left in itertools.combinations(planted, size):
                assert _remaining(left, planted) == sorted(left), (planted, left)


def test_draws_differ_between_seeds():
    assert len({plants.draw(seed) for seed in range(20)}) > 10


def test_the_real_check_counts_and_names_nothing():
    """Through the sandbox: the stub, one default plant left, and a fix that adds a bug."""
    stub = checked(KATA, KATA.stub_path)
    one_left = checked(KATA, KATA.folder / "uncatalogued" / "planted-no-max-shift.py")
    new_bug = checked(KATA, KATA.folder / "uncatalogued" / "fix-scales-by-d-head.py")
    assert stub.status == one_left.status == new_bug.status == "failed"
    assert stub.bugs == one_left.bugs == new_bug.bugs == []
    assert stub.tests[0].message == "4 of 4 planted bugs remain"
    assert one_left.tests[0].message == "1 of 4 planted bugs remain"
    assert "cannot tell" in new_bug.tests[0].message


def test_the_planted_proving_files_are_the_plants_of_today():
    for path in KATA.folder.glob("uncatalogued/planted-*.py"):
        assert path.read_text() == plants.source_with([path.stem.removeprefix("planted-")]), path.name


def test_a_learner_practises_on_another_draw(workspace):
    """`kata reset 10 --seed S` plants S's four bugs; checks count those; the hints past the written ones say
    where one remaining bug is, then which, from what the file computes."""
    from click.testing import CliRunner

    from checker.cli import cli

    run = CliRunner().invoke
    assert run(cli, ["reset", "10", "--seed", "7"]).exit_code == 0
    assert (workspace / "katas" / KATA.filename).read_text() == plants.source_with(plants.draw(7))
    assert "4 of 4 planted bugs remain" in run(cli, ["check", "10"]).output
    written = len(prompts.for_kata(KATA).hints)
    for _ in range(written):
        run(cli, ["hint", "10"])
    where, which = run(cli, ["hint", "10"]).output, run(cli, ["hint", "10"]).output
    first = sorted(plants.draw(7))[0]
    assert f"is in {plants.BY_BUG[first].area}" in where and f"That bug is `{first}`" in which
    assert prompts.fix_of(first) in which
    (workspace / "katas" / KATA.filename).write_text(KATA.solution_path.read_text())
    assert run(cli, ["check", "10"]).exit_code == 0
    assert "no planted bug" in run(cli, ["hint", "10"]).output
    assert run(cli, ["reset", "03", "--seed", "7"]).exit_code == 2  # one stub: no draw to make

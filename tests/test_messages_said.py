"""What three messages say, as the learner reads them: kata 03 says whose mask a call used, kata 10 names the
function whose answer first departs from every mix of the planted bugs, kata 12 shows how the right search
reached the expected hypothesis when yours returned another that it finishes too."""

import re

from checker.engine import catalog
from checker.engine.runner import check
from conftest import ZOO


def test_kata_03_says_the_mask_was_the_checkers_when_it_was():
    result = check(catalog.find("03"), ZOO / "03" / "full-row-nan.py")
    worked = next(t for t in result.failures if t.name == "worked_example")
    assert "mask=the right causal_mask(3, 2))" in worked.message
    chained = check(catalog.find("03"), ZOO / "03" / "mask-top-left.py")
    own = [t.message for t in chained.failures if t.name == "causal_attention"]
    assert own and "mask=your causal_mask(2, 5))" in own[0], own


def test_kata_10_names_the_first_function_no_mix_of_the_plants_explains():
    folder = catalog.find("10").folder / "uncatalogued"
    scaled = check(catalog.find("10"), folder / "fix-scales-by-d-head.py").tests[0]
    assert scaled.details["remaining"] is None  # control: no mix of the plants explains the file
    assert re.search(r"The first answer no mix gives: cached_attention of 2 new tokens \(probe 6 of \d+; "
                     r"softmax, causal_mask, split_heads, merge_heads agree before it\)", scaled.message), scaled.message


def test_kata_12_shows_the_expected_hypothesis_path_when_both_are_finished():
    file = catalog.find("12").folder / "uncatalogued" / "eos_at_any_rank.py"
    messages = [t.message for t in check(catalog.find("12"), file).failures]
    told = [m for m in messages if "the right search finishes yours too" in m]
    assert told, messages  # control: the case the issue saw
    for message in told:
        path = re.search(r"the expected one: (.*); yours never returned it", message)
        assert path and re.search(r"kept live at step \d+ \(rank \d+ of \d+\)", path[1]), message
        expected = re.search(r"expected \((\[[\d, ]+\])", message)[1]
        assert f"{expected} finished at step" in path[1], message

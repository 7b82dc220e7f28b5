"""A strict mock shows the task and its contract, never the trick: prompts.yaml keeps each kata's way to the
answer in `method`, apart from the `brief` a strict mock prints (`--coach` and `kata check` show both)."""

import re

import click
import pytest

from checker.engine import catalog, prompts
from checker.present import render

# the trick of each kata the issue names, as its sentences would say it (any spelling of the formula)
TRICKS = {
    "03": [r"before the softmax", r"mask the scores"],
    "08": [r"exp\(m_old\s*-\s*m_new\)", r"multiply l and o", r"divide o by l"],
    "11": [r"dy\s*-\s*sum\(dy\s*\*\s*y", r"y\s*\*\s*\(dy", r"P\^T\s*\.\s*d_out", r"dS\s*\.\s*k\s*/", r"dS\^T"],
}


def _sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.;:])\s+", " ".join(text.split())) if len(s.strip()) > 12]


def _screen(kata, strict):
    told = prompts.for_kata(kata)
    return click.unstyle(render.mock_screen(kata, told, 1800, f".kata/mock/{kata.filename}", 3, strict=strict))


@pytest.mark.parametrize("kata_id", sorted(TRICKS))
def test_a_strict_mocks_brief_holds_no_sentence_of_the_trick(kata_id):
    kata = catalog.find(kata_id)
    told = prompts.for_kata(kata)
    strict, coach = " ".join(_screen(kata, True).split()), " ".join(_screen(kata, False).split())
    assert told.method, "the trick is kept in prompts.yaml's method"
    for sentence in _sentences(told.method):
        assert sentence not in strict and sentence in coach, sentence  # control: the coach mock tells it
    for trick in TRICKS[kata_id]:
        assert not re.search(trick, strict, re.I), trick
    assert re.search("|".join(TRICKS[kata_id]), coach, re.I)  # control: the patterns find the trick where it is
    # the contract is all there: the kata's functions, and the brief whole
    assert " ".join(told.brief.replace("katas/", ".kata/mock/").split()) in strict


def test_kata_check_and_kata_next_still_teach_the_method():
    from click.testing import CliRunner

    from checker.cli import cli

    shown = CliRunner(env={"NO_COLOR": "1"}).invoke(cli, ["check", "08", "--file",
                                                          str(catalog.find("08").pristine_path)])
    assert "NOT STARTED" in shown.output and "exp(m_old - m_new)" in " ".join(shown.output.split())

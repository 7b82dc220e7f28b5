"""A mock hands out the kata's stub as an interviewer would (issue 24, point 5): generated from the stub
itself, so they never drift: the same code, contract, shapes, edge cases and worked examples, without
the `# TODO` steps and the docstring paragraphs marked `Hint:` or `Trap:`."""

import ast
import re

import pytest
from click.testing import CliRunner

from checker.engine import catalog, stubs
from checker.cli import cli

KATAS = catalog.all_katas()


def practice_only(stub):
    """The lines the interview stub must drop: TODO lines (and their indented next lines), and each
    paragraph starting `Hint:` or `Trap:` up to its blank line or the docstring's end."""
    dropped, lines, paragraph, todo = set(), stub.splitlines(), False, False
    for number, line in enumerate(lines):
        todo = bool(re.match(r"\s*# TODO", line) or (todo and re.match(r"\s*#\s{2,}\S", line)))
        paragraph = paragraph or bool(re.match(r"\s*(Hint|Trap):", line))
        if todo or (paragraph and line.strip() and line.strip() != '"""'):
            dropped.add(number)
        if paragraph and (not line.strip() or line.rstrip().endswith('"""')):
            paragraph = False
    return [line for number, line in enumerate(lines) if number not in dropped]


@pytest.mark.parametrize("kata", KATAS, ids=str)
def test_the_interview_stub_is_the_stub_without_its_practice_notes(kata):
    stub = kata.pristine_path.read_text()
    interview = stubs.interview(stub)
    ast.parse(interview)
    assert "# TODO" not in interview and not re.search(r"^\s*(Hint|Trap):", interview, re.M)
    kept = [line for line in practice_only(stub) if line.strip()]
    assert [line for line in interview.splitlines() if line.strip()] == kept  # nothing else changed, nothing added
    for marker in (r"Args:", r"Returns:", r"Raises:", r">>>", r"raise NotImplementedError", r"(def|class) "):
        count = re.compile(rf"^\s*{marker}", re.M)
        assert len(count.findall(interview)) == len(count.findall(stub)), marker


def test_the_stubs_mark_their_traps(tmp_path):
    """The traps the issue saw given away are marked, so a mock leaves them out (04, 07 by their words)."""
    gone = {"multi-head": "reshape THEN a transpose", "gqa": "np.tile"}
    for slug, words in gone.items():
        kata = catalog.find(slug)
        assert words in kata.pristine_path.read_text() and words not in stubs.interview(kata.pristine_path.read_text())


def test_a_mock_hands_out_the_interview_stub(workspace):
    kata = catalog.find("multi-head")
    CliRunner().invoke(cli, ["mock", "--kata", kata.id, "--minutes", "0.001", "--poll", "0.01"])
    handed = (workspace / ".kata" / "mock" / kata.filename).read_text()
    assert handed == stubs.interview(kata.pristine_path.read_text()) != kata.pristine_path.read_text()
    assert (workspace / "katas" / kata.filename).read_text() == kata.stub_path.read_text()  # left alone

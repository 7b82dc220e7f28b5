"""prompts.yaml is data: it validates, it covers every kata, and bad files fail with a clear message."""

import pytest
import yaml

from checker.engine import catalog, prompts


def test_the_shipped_file_validates_and_covers_every_kata():
    loaded = prompts.load()
    assert set(loaded) == {kata.slug for kata in catalog.all_katas()}
    for entry in loaded.values():
        assert len(entry.hints) >= 3


def _write(tmp_path, data):
    path = tmp_path / "prompts.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


GOOD = {"title": "T", "brief": "B", "hints": ["1", "2", "3"], "bugs": {"some-bug": {"fix": "do this"}}}


@pytest.mark.parametrize("data, words", [
    ({"katas": {"scores": GOOD}}, "format_version: expected 1"),
    ({"format_version": 1, "katas": {"scores": GOOD}, "extra": 1}, "unknown keys ['extra']"),
    ({"format_version": 1, "katas": {"scores": {**GOOD, "colour": "red"}}}, "katas.scores: unknown keys ['colour']"),
    ({"format_version": 1, "katas": {"scores": {**GOOD, "hints": ["1", "2"]}}}, "katas.scores.hints"),
    ({"format_version": 1, "katas": {"scores": {**GOOD, "title": ""}}}, "katas.scores.title"),
    ({"format_version": 1, "katas": {"scores": {**GOOD, "bugs": {"x": {"fixx": "y"}}}}}, "katas.scores.bugs.x"),
    ({"format_version": 1, "katas": {"no-such-kata": GOOD}}, "katas.no-such-kata: no such kata"),
])
def test_bad_files_name_the_file_and_the_entry(tmp_path, data, words):
    path = _write(tmp_path, data)
    with pytest.raises(prompts.PromptsError) as error:
        prompts.load(path)
    assert str(path) in str(error.value) and words in str(error.value)


def test_unreadable_yaml_is_a_clear_error(tmp_path):
    path = tmp_path / "prompts.yaml"
    path.write_text("katas: [unclosed")
    with pytest.raises(prompts.PromptsError, match="cannot read it"):
        prompts.load(path)


QUESTION = {"id": "q1", "kind": "templated", "prompt": "d_k = {d_k}?", "draw": {"d_k": [4]},
            "answer": "sqrt_dk", "explanation": "e"}


@pytest.mark.parametrize("question, words", [
    ({**QUESTION, "kind": "essay"}, "kind must be one of"),
    ({key: value for key, value in QUESTION.items() if key != "answer"}, "katas.scores.questions.q1: missing answer"),
    ({**QUESTION, "answer": "no_such_function"}, "is not a function of the kata's quiz.py"),
    ({**QUESTION, "hint": "x"}, "unknown keys ['hint']"),
    ({**QUESTION, "draw": {"d_k": []}}, "draw must map each name"),
    ({"id": "c", "kind": "choice", "prompt": "p", "explanation": "e", "choices": [{"text": "a"}, {"text": "b"}]},
     "exactly one correct"),
])
def test_bad_questions_name_the_file_and_the_entry(tmp_path, question, words):
    path = _write(tmp_path, {"format_version": 1, "katas": {"scores": {**GOOD, "questions": [question]}}})
    with pytest.raises(prompts.PromptsError) as error:
        prompts.load(path)
    assert str(path) in str(error.value) and words in str(error.value)


def test_every_catalogued_id_says_what_the_mistake_is():
    """The report explains each id it names in the catalogue's line: every id a kata's block lists has one,
    its own or the first kata's that catalogues it."""
    for entry in prompts.load().values():
        for bug_id in entry.fixes:
            assert prompts.means_of(bug_id), bug_id

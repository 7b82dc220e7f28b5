"""The quiz: every question computes its answer, for any seed; replies are read as people write them."""

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from checker import catalog, prompts, quiz
from checker.cli import cli

QUESTIONS = [q for kata in catalog.all_katas() for q in prompts.for_kata(kata).questions]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_question_computes_its_answer(question, seed):
    import random

    asked = quiz.ask(question, random.Random(seed))
    assert "{" not in asked.prompt and "{" not in asked.explanation
    assert quiz.grade(asked, right_answer(asked)), (asked.prompt, asked.expected)
    assert not quiz.grade(asked, wrong_answer(asked))


def test_enough_questions_of_every_kind():
    per_kata = {kata.slug: 0 for kata in catalog.all_katas()}
    for q in QUESTIONS:
        per_kata[q.kata] += 1
    assert all(count >= 8 for count in per_kata.values()), per_kata
    assert len(QUESTIONS) >= 40 and sum(q.kind == "templated" for q in QUESTIONS) >= 20
    assert {q.kind for q in QUESTIONS} == set(quiz.KINDS)


def right_answer(asked):
    if asked.question.kind == "choice":
        return "abcdefgh"[asked.expected]
    return quiz.expected_text(asked)


def wrong_answer(asked):
    if asked.question.kind == "choice":
        return "abcdefgh"[(asked.expected + 1) % len(asked.choices)]
    return "12345678"


@pytest.mark.parametrize("reply, expected", [
    ("(2, 8, 10, 10)", (2, 8, 10, 10)), ("2x8x10x10", (2, 8, 10, 10)), ("[2,8,10,10]", (2, 8, 10, 10)),
    ("2 8 10 10", (2, 8, 10, 10)), ("2 × 8 × 10 × 10", (2, 8, 10, 10)),
])
def test_shapes_as_people_write_them(reply, expected):
    asked = quiz.Asked(QUESTIONS[0], "", expected, "")
    assert quiz.grade(asked, reply)


@pytest.mark.parametrize("reply, ok", [("8", True), ("8.0", True), ("1/3", False), ("7.99", False)])
def test_whole_numbers(reply, ok):
    asked = quiz.Asked(QUESTIONS[0], "", 8, "")
    assert quiz.grade(asked, reply) == ok


@pytest.mark.parametrize("reply, ok", [("1/3", True), ("0.333", True), ("0.3333", True), ("0.33", False), ("", False)])
def test_fractions_within_the_stated_tolerance(reply, ok):
    question = next(q for q in QUESTIONS if q.id == "softmax-uniform")
    asked = quiz.Asked(question, "", float(Fraction(1, 3)), "")
    assert quiz.grade(asked, reply) == ok


def test_choices_by_letter_or_text_in_any_case():
    question = next(q for q in QUESTIONS if q.kind == "choice")
    asked = quiz.Asked(question, "", 1, "", ["First", "The Right One", "Third"])
    assert quiz.grade(asked, "B") and quiz.grade(asked, "b)") and quiz.grade(asked, "the right one")
    assert not quiz.grade(asked, "a") and not quiz.grade(asked, "the right")


def session(*args, input=""):
    return CliRunner().invoke(cli, ["quiz", *args], input=input)


def test_a_session_with_right_reformatted_wrong_and_missing_answers():
    asked = quiz.draw(QUESTIONS, 6, 11)
    replies = [right_answer(a).replace(", ", " ") if i % 2 else right_answer(a).upper()
               for i, a in enumerate(asked[:4])] + [wrong_answer(asked[4])]  # the sixth: end of input
    result = session("-n", "6", "--seed", "11", "--json", input="\n".join(replies) + "\n")
    report = json.loads(result.stdout)
    assert report["seed"] == 11 and report["asked"] == 6 and report["correct"] == 4
    assert [q["correct"] for q in report["questions"]] == [True] * 4 + [False, False]
    assert report["questions"][5]["given"] is None
    assert [q["id"] for q in report["questions"]] == [a.question.id for a in asked]
    assert set(report["questions"][0]) == {"id", "kata", "kind", "prompt", "expected", "given", "correct"}


def test_text_session_shows_verdicts_and_the_score():
    asked = quiz.draw(prompts.for_kata(catalog.find("softmax")).questions, 2, 5)
    result = session("softmax", "-n", "2", "--seed", "5", input=right_answer(asked[0]) + "\n")
    assert result.exit_code == 0
    assert "Right." in result.output and "Unanswered." in result.output
    assert asked[0].explanation in result.output and "Score: 1 of 2" in result.output


def test_the_same_seed_asks_the_same_quiz():
    first, second = session("--seed", "42", "--json").stdout, session("--seed", "42", "--json").stdout
    assert json.loads(first) == json.loads(second)


def test_list_every_question():
    rows = json.loads(session("--list", "--json").stdout)
    assert [(r["id"], r["kata"], r["kind"]) for r in rows] == [(q.id, q.kata, q.kind) for q in QUESTIONS]


def test_unknown_kata_is_a_usage_mistake():
    result = session("nope")
    assert result.exit_code == 2 and "unknown kata" in result.output


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_a_stated_rounding_is_the_answers_rounding(question):
    import re

    stated = re.search(r"\((\d) decimals?", question.prompt)
    assert question.decimals == (int(stated.group(1)) if stated else question.decimals)
    if question.decimals is not None and question.tolerance is not None:
        assert question.tolerance >= 0.5 * 10 ** -question.decimals  # the rounded answer itself is accepted

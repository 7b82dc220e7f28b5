"""The quiz: questions from prompts.yaml, drawn with a seed, answers computed, replies graded.

Kinds of question:
- templated: dimensions drawn from `draw`, the answer computed by `answer`, a function in
  its kata's `quiz.py` (checker/hidden/<slug>/quiz.py) called with the drawn values;
- predict: "what does this small call return?", answered by calling the reference solution;
- choice: conceptual; the choices are shuffled, and the explanation is shown after answering;
- worked: the design card's worked examples, the answer computed from the reference solutions.
"""

import re
import string
from dataclasses import dataclass, field

from checker.engine import catalog
from checker.engine.questions import Question
from checker.practice import quiz_reply
from checker.present import render

@dataclass
class Asked:
    """One question as it is put: drawn, its answer computed, its choices shuffled."""

    question: Question
    prompt: str
    expected: object  # tuple (a shape), a number, a list of numbers, or the index of the right choice
    explanation: str
    choices: list = field(default_factory=list)  # texts, in the order shown
    given: str | None = None
    correct: bool = False
    exact: object = None  # the answer before the rounding the prompt asks for
    answered: bool = False  # its reply was read (or the input ended): a Ctrl-C leaves the rest unanswered

    @property
    def answer_text(self):
        """The expected answer as people read it."""
        return expected_text(self)

    def to_json(self):
        q = self.question
        return {"id": q.id, "kata": q.kata, "kind": q.kind, "prompt": self.prompt,
                "expected": expected_text(self), "given": self.given, "correct": self.correct}


# --- asking --------------------------------------------------------------------------------------

def ask(question, rng):
    """Draw a question's values, compute its answer, shuffle its choices."""
    from checker.practice import worked  # NumPy: kata list and kata hint read prompts.yaml (this module) without it

    values = {name: rng.choice(options) for name, options in question.draw.items()}
    if question.kind == "choice":
        order = list(range(len(question.choices)))
        rng.shuffle(order)
        texts = [str(question.choices[i]["text"]).strip() for i in order]
        expected = next(n for n, i in enumerate(order) if question.choices[i].get("correct"))
        return Asked(question, question.prompt, expected, question.explanation, texts)
    if question.kind == "predict":
        module = catalog.find(question.kata).reference()
        function = getattr(module, question.call["function"])
        expected = _plain(function(*(values[name] for name in question.call.get("args", []))))
    else:
        expected = _plain(getattr(catalog.find(question.kata).part("quiz"), question.answer)(**values))
    exact = expected
    if question.decimals is not None:
        expected = _round(expected, question.decimals)
    filled = {**worked.settings(), **values, "answer": _text(expected, question.decimals)}
    return Asked(question, _FORMATTER.format(question.prompt, **filled), expected,
                 _FORMATTER.format(question.explanation, **filled), exact=exact)


class _Counted(string.Formatter):
    """`{steps:decode step}` writes "1 decode step" or "7 decode steps", `{t:new query}` "2 new queries":
    the grammar follows the number."""

    def format_field(self, value, spec):
        if spec and spec[0].isalpha():
            if value == 1:
                return f"{value} {spec}"
            plural = spec[:-1] + "ies" if spec.endswith("y") and spec[-2:-1] not in "aeiou" else spec + "s"
            return f"{value} {plural}"
        return super().format_field(value, spec)


_FORMATTER = _Counted()


def draw(questions, count, seed):
    """`count` questions (each at most once), drawn and computed. The same seed gives the same quiz, and
    a longer quiz with that seed starts with the same questions, the same numbers and the same choices."""
    import random

    order = list(questions)
    random.Random(seed).shuffle(order)
    return [ask(question, random.Random(f"{seed}:{question.id}")) for question in order[:count]]


def replay_command(kata_key, count, seed):
    """The command that asks the same quiz again."""
    return " ".join(["kata quiz", *([kata_key] if kata_key else []), "-n", str(count), "--seed", str(seed)])


def _plain(value):
    """NumPy results as Python numbers, tuples (shapes) and lists (values)."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.ndim else _plain(value.item())
    if isinstance(value, (bool, np.bool_)):
        return int(value)  # a mask reads as 1 and 0
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _round(value, decimals):
    if isinstance(value, list):
        return [_round(v, decimals) for v in value]
    return round(value, decimals) + 0.0 if isinstance(value, float) else value


def run(asked, read_reply, show):
    """Put each question, read its reply (None: unanswered), grade it and show the verdict. A reply that
    reads as no option and no number is said to be unreadable and asked again, never marked wrong.
    Ctrl-C (KeyboardInterrupt, or click's Abort) is the caller's: `answered` says how far it got."""
    for number, question in enumerate(asked, start=1):
        show(render.question_text(question, number, len(asked)))
        reply = read_reply()
        while reply is not None and reply.strip() and not understood(question, reply):
            show(render.unreadable_text(question, reply, hedged=quiz_reply.plain(reply, approximate=False) is None))
            reply = read_reply()
        grade(question, reply)
        question.answered = True
        show(render.verdict_text(question))
    return sum(q.correct for q in asked)


def answered(asked):
    """(right, answered): the score of the questions answered so far."""
    done = [q for q in asked if q.answered]
    return sum(q.correct for q in done), len(done)


# --- grading -------------------------------------------------------------------------------------

def grade(asked, reply):
    """Record and judge a reply, read the way a person writes it."""
    asked.given = None if reply is None or not reply.strip() else reply.strip()
    asked.correct = asked.given is not None and _matches(asked, asked.given)
    return asked.correct


def understood(asked, reply):
    """True when a reply reads as one of the options, or as numbers (right or wrong)."""
    if asked.question.kind == "choice":
        return quiz_reply.choice(reply, asked.choices) is not None
    return quiz_reply.readable(reply, *_reading(asked))


def _reading(asked):
    """How a number question reads its replies: (byte unit or None, its own nouns, approximate or not)."""
    q = asked.question
    asked_for = re.search(r"\bhow many (\w+)", asked.prompt.lower())  # "How many MiB ...": a size in MiB
    unit = (q.unit or (asked_for.group(1) if asked_for else "")).lower()
    nouns = quiz_reply.words_of(f"{asked.prompt} {unit}")
    if asked_for and asked_for.group(1) == "times":  # "How many times more ...?": "8 times" (never 2 times 4)
        nouns |= {"times"}
    return (unit if unit in quiz_reply.BYTE_UNITS else None), nouns, q.tolerance is not None or q.decimals is not None


def _matches(asked, reply):
    expected = asked.expected
    if asked.question.kind == "choice":
        return quiz_reply.choice(reply, asked.choices) == expected
    wanted = _flatten(expected)
    numbers = quiz_reply.numbers(reply, len(wanted), *_reading(asked))
    if numbers is None:
        return False
    if isinstance(expected, tuple):
        return numbers == wanted
    tolerance = asked.question.tolerance
    exact = wanted if asked.exact is None else _flatten(asked.exact)
    return all(_close(got, want, tolerance) or _close(got, best, tolerance)
               for got, want, best in zip(numbers, wanted, exact))


def _close(got, want, tolerance):
    """A rounded question takes what is within its stated tolerance; an exact one only the exact value, in any
    notation: a count exactly (1073741825 is not 2^30), any other number up to the last bits of a float
    (1/sqrt(8) written out), never a relative slack that grows with the number."""
    if tolerance is not None:
        return abs(got - want) <= tolerance + 1e-12 * max(1.0, abs(want))
    if float(want).is_integer() and abs(want) < 2**53:
        return got == want
    return abs(got - want) <= 4 * _ULP * abs(want)


_ULP = 2.0 ** -52  # float64's relative spacing


def _flatten(value):
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flatten(item)]
    return [float(value)]


# --- showing answers -------------------------------------------------------------------------------

def expected_text(asked):
    if asked.question.kind == "choice":
        return f"{chr(ord('a') + asked.expected)}) {asked.choices[asked.expected]}"
    return _text(asked.expected, asked.question.decimals)


def _text(value, decimals=None):
    """A value as people read it; with `decimals`, a float as the prompt asked it rounded (512.0 for "1 decimal")."""
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v, decimals) for v in value) + "]"
    if isinstance(value, float):
        if decimals is not None and value == value and abs(value) != float("inf"):
            return f"{value:,.{decimals}f}" if abs(value) >= 1e4 else f"{value:.{decimals}f}"
        return f"{value:g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.3g}"
    return str(value)

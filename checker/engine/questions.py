"""A quiz question as prompts.yaml writes it, and the validation of a kata block's `questions`: the data side
of the quiz, read by prompts.py on load (asking and grading are checker/practice/quiz.py's)."""

import re
from dataclasses import dataclass, field

from checker.engine import catalog

# A byte unit and its size in bytes: SI units are powers of 1000, IEC units powers of 1024.
BYTE_UNITS = {"b": 1, "byte": 1, "bytes": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
              "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
KINDS = ("templated", "predict", "choice", "worked")
_KEYS = {
    "templated": {"id", "kind", "prompt", "draw", "answer", "explanation"},
    "predict": {"id", "kind", "prompt", "draw", "call", "explanation"},
    "choice": {"id", "kind", "prompt", "choices", "explanation"},
    "worked": {"id", "kind", "prompt", "answer", "explanation"},
}
_OPTIONAL = {"tolerance", "decimals", "unit"}



class QuizError(ValueError):
    pass


@dataclass(frozen=True)
class Question:
    """One question as prompts.yaml writes it."""

    id: str
    kata: str  # slug
    kind: str
    prompt: str
    explanation: str
    draw: dict = field(default_factory=dict)  # name -> the values it is drawn from
    answer: str | None = None  # a function of the kata's quiz.py
    call: dict | None = None  # predict: {"function": name, "args": [names of drawn values]}
    choices: tuple = ()  # choice: ({"text": ..., "correct": bool}, ...)
    tolerance: float | None = None  # numbers: the largest accepted error
    decimals: int | None = None  # predict and worked: the rounding the prompt asks for
    unit: str | None = None  # a byte unit (MiB: the answer is a size, replies may carry their own unit) or a
    # noun the reply may carry though the prompt does not say it ("tokens")


def parse_questions(slug, entries, where):
    """The `questions` of one kata block, validated; `where` names the block in error messages."""
    answers = catalog.find(slug).part("quiz")
    if not isinstance(entries, list):
        raise QuizError(f"{where}: expected a list of questions")
    questions = []
    for number, entry in enumerate(entries):
        here = f"{where}[{number}]"
        if not isinstance(entry, dict):
            raise QuizError(f"{here}: expected a mapping")
        kind = entry.get("kind")
        if kind not in KINDS:
            raise QuizError(f"{here}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
        here = f"{where}.{entry.get('id', number)}"
        keys = set(entry)
        missing, unknown = _KEYS[kind] - keys, keys - _KEYS[kind] - _OPTIONAL
        if missing:
            raise QuizError(f"{here}: missing {', '.join(sorted(missing))}")
        if unknown:
            raise QuizError(f"{here}: unknown keys {sorted(unknown)} for a {kind} question")
        if "answer" in entry and not callable(getattr(answers, str(entry["answer"]), None)):
            raise QuizError(f"{here}: answer {entry['answer']!r} is not a function of the kata's quiz.py")
        if kind == "choice":
            choices = entry["choices"]
            if (not isinstance(choices, list) or len(choices) < 2
                    or sum(bool(c.get("correct")) for c in choices if isinstance(c, dict)) != 1):
                raise QuizError(f"{here}: choices must be two or more {{text, correct}}, exactly one correct")
        if kind == "choice" and len({words(str(c.get("text", ""))) for c in entry["choices"]}) < len(
                entry["choices"]):
            raise QuizError(f"{here}: two choices differ only in case or punctuation")
        if "unit" in entry and not re.fullmatch(r"[a-z][a-z_ ]*", str(entry["unit"]).lower()):
            raise QuizError(f"{here}: unit must be a byte unit ({', '.join(BYTE_UNITS)}) or a noun")
        if kind in ("templated", "predict") and not (isinstance(entry["draw"], dict) and all(
                isinstance(values, list) and values for values in entry["draw"].values())):
            raise QuizError(f"{here}: draw must map each name to a non-empty list of values")
        questions.append(Question(
            id=str(entry["id"]), kata=slug, kind=kind, prompt=str(entry["prompt"]).strip(),
            explanation=str(entry["explanation"]).strip(), draw=entry.get("draw", {}), answer=entry.get("answer"),
            call=entry.get("call"), choices=tuple(entry.get("choices", ())), tolerance=entry.get("tolerance"),
            decimals=entry.get("decimals"), unit=entry.get("unit")))
    return questions


def words(text):
    """Text as its lower-case words and numbers: punctuation and case are ignored."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))

"""A timed mock interview: one kata against the clock, then three follow-up questions from the quiz.

The session is plain logic with its I/O handed in (a check, a screen, a quiz), so it runs the same in
a terminal and in a test with a fake clock. What it produces is a `MockReport`.
"""

import random
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from checker.practice import progress, watch

FORMAT_VERSION = 1
QUESTIONS = 3
DEFENCE_QUESTIONS = 2  # of the three: about the file just passed (kata defend), the rest from the quiz
PASSED, OUT_OF_TIME, STOPPED = "passed", "out of time", "stopped"


@dataclass
class QuizAnswer:
    id: str
    prompt: str
    expected: str
    given: str | None
    correct: bool


@dataclass
class QuizScore:
    asked: int = 0
    correct: int = 0
    questions: list[QuizAnswer] = field(default_factory=list)


@dataclass
class MockReport:
    kata: str  # "02"
    slug: str
    seed: int
    minutes: float
    started: str  # ISO 8601, local time with its offset
    ended: str
    status: str  # passed | out of time | stopped
    seconds_to_pass: float | None
    attempts: int  # checks run: one a change of the file
    bugs_hit: list[str]  # catalogued bug ids the checks named, in first-seen order
    hints_used: int  # `kata hint` during the mock
    quiz: QuizScore

    def to_json(self):
        return {"format_version": FORMAT_VERSION, **asdict(self)}


def pick(katas, unpassed, seed):
    """The kata of a mock and why: drawn with `seed` among `unpassed` (those that do not pass now), or
    among all of `katas` once every one passes."""
    pool = list(unpassed) or list(katas)
    kata = random.Random(seed).choice(pool)
    ids = ", ".join(k.id for k in pool)
    if not unpassed:
        return kata, f"Every kata passes here, so it was drawn (seed {seed}) among all {len(pool)}: {ids}."
    if len(pool) == 1:
        return kata, "It is the one kata that does not pass here yet."
    return kata, f"Drawn (seed {seed}) among the {len(pool)} katas that do not pass here yet: {ids}."


def fresh_copy(kata, workspace, folder="mock"):
    """The mock's own file, .kata/mock/NN_slug.py, holding the shipped stub as an interviewer hands it out
    (stubs.interview: the contract, without the TODO steps and the notes on traps); the learner's file is
    left alone. `folder`: another folder of .kata/ (`kata review` keeps its own)."""
    from checker.engine import stubs
    from checker.engine.workspace import pristine_stub

    path = Path(workspace) / ".kata" / folder / kata.filename
    stub = pristine_stub(kata)
    progress.atomic_write(path, stubs.interview(stub if stub is not None else kata.stub_path.read_text(encoding="utf-8")))
    return path


class Session:
    """One mock in progress: the clock, the checks so far, the quiz once it passed."""

    def __init__(self, kata, path, minutes, seed, clock=None):
        self.kata, self.path, self.minutes, self.seed = kata, Path(path), minutes, seed
        self.clock = clock or watch.Clock()
        self.started_wall = self.clock.wall()
        self.start = self.clock.monotonic()
        self.deadline = self.start + minutes * 60
        self.attempts, self.bugs_hit, self.seconds_to_pass, self.asked = 0, [], None, []

    def seconds_left(self):
        return max(0.0, self.deadline - self.clock.monotonic())

    def record(self, result):
        """Count a check; True once the kata passes."""
        self.attempts += 1
        self.bugs_hit += [bug for bug in result.bugs if bug not in self.bugs_hit]
        if result.status.value == PASSED and self.seconds_to_pass is None:
            self.seconds_to_pass = round(self.clock.monotonic() - self.start, 1)
        return self.seconds_to_pass is not None

    def run(self, check, show, ask, questions, poll=watch.POLL_SECONDS, on_tick=None):
        """Watch the file until it passes, time runs out or Ctrl-C; after a pass put the questions.

        check(path) -> Result, show(result) draws the screen, ask(asked) puts the drawn questions
        (quiz.run). Returns the status; KeyboardInterrupt anywhere ends the session as "stopped".
        """
        from checker.practice import quiz

        def on_change(path):
            result = check(path)
            passed = self.record(result)
            show(result)
            return passed

        try:
            why = watch.loop(self.path, on_change, poll=poll, clock=self.clock, deadline=self.deadline,
                             baseline=True, on_tick=on_tick)
            if why != "done":
                return OUT_OF_TIME
            self.asked = defended(self.kata, self.path, quiz.draw(questions, QUESTIONS, self.seed), self.seed)
            ask(self.asked)
            return PASSED
        except KeyboardInterrupt:
            return STOPPED

    def report(self, status, hints_used):
        from checker.practice.quiz import expected_text

        answers = [QuizAnswer(a.question.id, a.prompt, expected_text(a), a.given, a.correct) for a in self.asked]
        return MockReport(self.kata.id, self.kata.slug, self.seed, self.minutes, _iso(self.started_wall),
                          _iso(self.clock.wall()), status, self.seconds_to_pass, self.attempts, list(self.bugs_hit),
                          hints_used, QuizScore(len(answers), sum(a.correct for a in answers), answers))


def defended(kata, path, asked, seed, count=DEFENCE_QUESTIONS):
    """`kata defend`'s hook: questions about the file just passed (its own lines, answered by running it) take
    the place of the last `count` quiz questions; where the kata has none, or the file cannot be run again,
    the quiz stays as drawn."""
    from checker.practice import defend
    from checker.sandbox import LearnerError, SandboxError, read_learner_file

    try:
        found = defend.questions(kata, path, read_learner_file(path), count=count, seed=seed,
                                 kinds=("what-if", "predict"))
    except (OSError, ValueError, LearnerError, SandboxError):
        return asked
    return asked[:len(asked) - len(found)] + [question.asked for question in found]


def _iso(seconds):
    return datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")


def save(report, markdown, folder, attempt=None):
    """Keep the report as `<folder>/<started>-<slug>.md` and `.json` (and the `attempt` file as `.py`);
    return the two report paths."""
    import json

    stem = f"{report.started[:19].replace('-', '').replace(':', '').replace('T', '-')}-{report.slug}"
    number, base = 1, Path(folder) / stem
    while base.with_suffix(".md").exists() or base.with_suffix(".json").exists():
        number += 1
        base = Path(folder) / f"{stem}-{number}"
    paths = base.with_suffix(".md"), base.with_suffix(".json")
    progress.atomic_write(paths[0], markdown)
    progress.atomic_write(paths[1], json.dumps(report.to_json(), indent=2) + "\n")
    if attempt is not None and Path(attempt).is_file():
        progress.atomic_write(base.with_suffix(".py"), Path(attempt).read_text(encoding="utf-8", errors="replace"))
    return paths


def write(report, markdown, path):
    """`--report PATH`: Markdown if PATH ends in .md, JSON otherwise."""
    import json

    path = Path(path)
    text = markdown if path.suffix.lower() == ".md" else json.dumps(report.to_json(), indent=2) + "\n"
    progress.atomic_write(path, text)
    return path

"""`kata defend`'s session: the check first (a file that does not pass is refused), the questions put and read as
the quiz reads them, the score; and the three follow-up questions a hiring team gets per candidate and kata."""

from checker.practice.defend import REFUSED, Defence, questions


def defend_file(kata, path, source, count=4, seed=0, file=None, limits=None, check_seed=None):
    """The whole defence of one file: its check first (with the learner's seed: kata 10's plants), a file that
    does not pass refused; then the questions."""
    from checker.engine.results import Status
    from checker.engine.runner import DEFAULT_SEED, check, display_path

    result = check(kata, path, limits, DEFAULT_SEED if check_seed is None else check_seed, source=source)
    defence = Defence(kata, file or display_path(path))
    if result.status != Status.PASSED:
        defence.refused = REFUSED.format(id=kata.id)
        return defence
    defence.questions = questions(kata, path, source, count, seed)
    return defence


def run_session(defence, read_reply, show):
    """Put each question, read its reply with the quiz's reader (an unreadable one is said so and asked again,
    never marked wrong), grade it and show the computed explanation. Ctrl-C is the caller's: `answered` says
    how far it got. Returns the number right."""
    from checker.practice import quiz, quiz_reply
    from checker.present import defend_text as text

    total = len(defence.questions)
    for number, question in enumerate(defence.questions, start=1):
        asked = question.asked
        show(text.question_text(question, number, total))
        reply = read_reply()
        while reply is not None and reply.strip() and not quiz.understood(asked, reply):
            show(text.unreadable(asked, reply, hedged=quiz_reply.plain(reply, approximate=False) is None))
            reply = read_reply()
        quiz.grade(asked, reply)
        asked.answered = True
        show(text.verdict(asked))
    return sum(q.asked.correct for q in defence.questions)


def score(defence):
    """(right, answered)."""
    done = [q for q in defence.questions if q.asked.answered]
    return sum(q.asked.correct for q in done), len(done)


def replay_command(kata, count, seed, file=None):
    return " ".join(["kata defend", kata.id, *(["--file", str(file)] if file else []), "-n", str(count),
                     "--seed", str(seed)])


def follow_ups(kata, path, source, seed=0, count=3):
    """For a hiring team: `count` questions about a passing candidate's own lines with their computed answers,
    for the debrief or the onsite, as JSON-able dicts (`kata grade --json`, the review page). Never raises for
    what the candidate's file does: a file that cannot be asked about gets none."""
    from checker.present import defend_text as text
    from checker.sandbox import LearnerError, SandboxError

    try:
        found = questions(kata, path, source, count, seed, kinds=("what-if", "predict"), telling_only=True)
    except (LearnerError, SandboxError, ValueError, KeyError, IndexError, TypeError):
        return []
    return [{"kind": q.kind, "line": q.line, "ask": text.interviewer_line(q), "answer": q.answer,
             "prompt": q.asked.prompt} for q in found]

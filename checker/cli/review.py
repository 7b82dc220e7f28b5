"""`kata review`: today's spaced, interleaved review set, from the learner's own history."""

import sys
from datetime import date

import click

from checker.engine import catalog
from checker.present import layout
from checker.cli import cli, common
from checker.cli.common import UsageProblem, echo, kata_prompts, load_progress, save


@cli.command("review")
@click.option("--until", "until", metavar="DATE", help="The interview's date (2026-12-24): every passed kata is "
              "reviewed by then, spread over the days left (kept for `kata list`; `--until none` forgets it).")
@click.option("--show", is_flag=True, help="Show the plan and stop (no kata is started).")
@click.option("--poll", type=click.FloatRange(min=0.01), default=0.5, show_default=True,
              help="Seconds between looks at the file.")
@click.option("--seed", type=int, default=0, help="Draws the questions that fill the set when few were missed.")
@click.pass_context
def review_command(ctx, until, show, poll, seed):
    """Redo what you are likely to forget: today's short set, from your own history.

    A kata joins the review once it passes, or once it failed three times without passing (then it is
    due at once). A passed kata is due a day after, then after intervals that double with each clean
    review (passed at the first check, no bug named) and start again from a day otherwise; many
    attempts, a bug hit more than once or its quiz questions missed bring it back sooner. Among the
    katas due, the one that needs it most comes first, and the plan says why each is there. Today's
    set is that kata, from a fresh stub in its own file (.kata/review/NN_slug.py; your katas/ file is
    left alone), checked at each save, then three quiz questions: the ones you missed, other katas'
    before its own. It needs a terminal: without one it shows the plan and says so. `--until DATE`
    spreads every proposed kata over the days left. Exit code: 0 once the set is done, 1 if stopped.

    Example:

    \b
        kata review
        kata review --until 2026-12-24
        kata review --show
    """
    from checker.present import render_progress

    workspace = common.workspace()
    record = load_progress(workspace)
    if until is not None:
        record.interview = _date(until)
        save(record)
    plan = common.review_plan(record)
    today = plan.now
    questions = _questions(record, today, seed)
    echo("\n".join(render_progress.plan_lines(plan, len(questions)) + _defence_lines(record)))
    if show or not (today or questions):
        return
    if not common.terminal_attached():  # nobody to save a file or answer: waiting would be forever
        echo("\n".join(layout.fit(["", "No terminal here (standard input is not one), so today's set is not "
                                    "started: run `kata review` in a terminal, where it waits for your saves; "
                                    "`kata review --show` prints the plan alone."])))
        sys.exit(1)
    done = all(_redo(ctx, proposal.kata, workspace, poll) for proposal in today)  # Ctrl-C stops the rest
    if done and questions:
        done = _ask(questions, workspace)
    sys.exit(0 if done else 1)


def _defence_lines(record):
    """The defence questions missed (`kata defend`), with the command that asks them again."""
    from checker.present.defend_lines import review_lines

    return layout.fit(review_lines(record))


def _date(text):
    if text.strip().lower() == "none":
        return None
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise UsageProblem(f"--until takes a date like 2026-12-24, not {text!r}") from None
    if day < date.today():
        raise UsageProblem(f"--until {day} is in the past")
    return day.isoformat()


def _questions(record, today, seed):
    """Today's questions: the ones missed most (other katas' first), then drawn from today's other katas."""
    from checker.practice import quiz, review

    own = {q.id for p in today for q in kata_prompts(p.kata).questions}
    ids = review.missed_questions(record, own, seed)
    by_id = {q.id: q for kata in catalog.all_katas() for q in kata_prompts(kata).questions}
    chosen = [by_id[qid] for qid in ids if qid in by_id]
    if len(chosen) < review.QUESTIONS and today:  # too few missed: questions on today's kata fill the set
        extra = [q for p in today for q in kata_prompts(p.kata).questions if q not in chosen]
        chosen += [a.question for a in quiz.draw(extra, review.QUESTIONS - len(chosen), seed)]
    return chosen


def _redo(ctx, kata, workspace, poll):
    """One kata from a fresh stub until it passes (Ctrl-C: False); the outcome goes into the schedule."""
    import time

    from checker.practice import mock, progress, review, watch
    from checker.present import render
    from checker.engine.runner import check as run_check
    from checker.engine.runner import display_path
    from checker.sandbox import warm

    warm.enable()
    path = mock.fresh_copy(kata, workspace, folder="review")
    echo("\n" + "\n".join(layout.fit([click.style(f"Redo {kata} from a fresh stub: edit {display_path(path)} and save; "
                                                 "each save is checked. To leave, Ctrl-C: it keeps its place, and the rest of "
                                                 "today's set waits for the next `kata review`.", bold=True)])))
    outcomes = []

    def on_change(changed):
        result = run_check(kata, changed)
        outcomes.append(result)
        echo(render.check_text(result, kata_prompts(kata, result.frontend), watching=True))
        return result.status.value == "passed"

    clock = (ctx.obj or {}).get("clock") or watch.Clock()
    try:
        watch.loop(path, on_change, poll=poll, clock=clock, baseline=True)
    except KeyboardInterrupt:
        echo(f"\nStopped: {kata} keeps its place in the review.")
        return False
    clean = len(outcomes) == 1 and not outcomes[0].bugs
    record = progress.load(workspace)
    review.record_review(record.of(kata.id), clean, time.time())  # the calendar's time: the schedule is in days
    save(record)
    entry = record.of(kata.id)
    echo("\n".join(layout.fit([f"{kata} passed again ({len(outcomes)} check{'s' if len(outcomes) != 1 else ''}): "
                               + (f"clean, so the next review is in {entry.interval_days:g} days." if clean
                                  else "not at the first check, so it comes back tomorrow.")])))
    return True


def _ask(questions, workspace):
    from checker.practice import quiz
    from checker.present import render
    from checker.cli.practice import _quiz_io

    asked = [quiz.ask(q, __import__("random").Random(f"review:{q.id}:{date.today()}")) for q in questions]
    echo(click.style(f"\n{layout.counted(len(asked), 'question')}:", bold=True))
    try:
        correct = quiz.run(asked, *_quiz_io())
    except (KeyboardInterrupt, click.Abort):
        correct = None
    record = load_progress(workspace)
    record.record_answers(asked)
    save(record)
    right, answered = quiz.answered(asked)
    echo(render.score_text(right, len(asked), None, answered=answered))
    return correct is not None

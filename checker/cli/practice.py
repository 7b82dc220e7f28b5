"""Commands for practising: quiz, watch, mock, and kata bench."""

import json
import sys
from pathlib import Path

import click

from checker.engine import catalog
from checker.present import layout
from checker.cli import cli, common
from checker.cli.common import UsageProblem, echo, file_digest, find_kata, kata_prompts, learner_seed, load_progress, \
    next_kata, readable, record_checks


@cli.command()
@click.argument("kata_key", metavar="[ID]", required=False)
@click.option("-n", "count", type=click.IntRange(min=1), default=5, show_default=True, help="How many questions.")
@click.option("--seed", type=int, help="Ask the same questions again (the seed is printed at the end).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with every question and answer.")
@click.option("--list", "list_only", is_flag=True, help="List every question (id, kata, kind) instead.")
def quiz(kata_key, count, seed, as_json, list_only):
    """Quiz yourself on shapes, scaling and masks: every answer is computed, never memorised.

    Answers are read from the terminal, or one a line from standard input when it is not a
    terminal (the end of input leaves the rest unanswered). Write them as you would on paper:
    shapes (2, 8, 10, 10), 2x8x10x10 or 2 8 10 10; numbers 2,359,296, 1/3, 1/sqrt(64), 2^28 or
    4*768*768; sizes 24 MiB or 25165824 bytes; choices b, (b), option b, the option as printed
    or the start of its text. A seed asks the same questions whatever -n: a longer quiz only adds
    questions after them.

    Example:

    \b
        kata quiz
        kata quiz softmax -n 3 --seed 7
        kata quiz --list
    """
    from checker.present import render

    import random

    from checker.practice import quiz as quizzes

    katas = [find_kata(kata_key)] if kata_key else catalog.all_katas()
    questions = [q for kata in katas for q in kata_prompts(kata).questions]
    if list_only:
        rows = [{"id": q.id, "kata": q.kata, "kind": q.kind} for q in questions]
        click.echo(json.dumps(rows) if as_json else "\n".join(f"{r['id']:<28} {r['kata']:<12} {r['kind']}" for r in rows))
        return
    if not questions:
        raise UsageProblem(f"no questions for {katas[0]} yet")
    seed = random.randrange(10**6) if seed is None else seed
    asked = quizzes.draw(questions, count, seed)
    read_reply, show = _quiz_io(err=as_json)
    replay = quizzes.replay_command(kata_key, count, seed)
    try:
        correct = quizzes.run(asked, read_reply, show)
    except (KeyboardInterrupt, click.Abort):  # click's prompt turns Ctrl-C into Abort
        right, done = quizzes.answered(asked)
        _keep_answers(asked)
        show("\n" + render.score_text(right, len(asked), replay, answered=done))
        sys.exit(1)
    _keep_answers(asked)
    if as_json:
        click.echo(json.dumps({"seed": seed, "replay": replay,
                               "asked": len(asked), "correct": correct,
                               "questions": [a.to_json() for a in asked]}))
    else:
        show(render.score_text(correct, len(asked), replay))


def _keep_answers(asked):
    """The questions missed, for `kata review` to ask again."""
    from checker.cli.common import save

    record = load_progress(common.workspace())
    record.record_answers(asked)
    save(record)


def _quiz_io(err=False):
    """(read_reply, show) for quiz.run: replies from the terminal, or one a line from standard input when
    it is not a terminal (its end: unanswered). `err` sends the questions to stderr (for --json)."""
    from checker.present import render

    stdin = sys.stdin
    interactive = stdin.isatty()

    def read_reply():
        if interactive:
            return click.prompt("Your answer", default="", show_default=False, err=err)
        line = stdin.readline()
        return line.rstrip("\n") if line else None

    def show(text):
        click.echo(text, err=err, color=render.color_wanted())

    return read_reply, show


def _clock(ctx):
    """Real time, unless a test hands a fake clock in as `obj={"clock": ...}`."""
    from checker.practice import watch

    return (ctx.obj or {}).get("clock") or watch.Clock()


@cli.command()
@click.argument("kata_key", metavar="[ID]", required=False)
@click.option("--poll", type=click.FloatRange(min=0.01), default=0.5, show_default=True,
              help="Seconds between looks at the file.")
@click.option("--max-checks", type=click.IntRange(min=1), help="Leave after this many checks (for scripts and tests).")
@click.pass_context
def watch(ctx, kata_key, poll, max_checks):
    """Check your katas as you save them, rustlings-style: the screen shows the status and the most
    informative failure.

    Starts with ID, or without it with the first kata that does not pass now (a kata reset since its
    pass counts as not passed). A save to any kata file checks that kata; once the one on screen
    passes, watch says so and moves on to the next kata not passed; the kata ID names stays watched
    while it passes (to redo one kata). A save that changes nothing is not checked again. Ctrl-C
    leaves (exit code 0).

    Example:

    \b
        kata watch
        kata watch softmax
    """
    from checker.present import render

    from datetime import datetime

    from checker.practice import watch as watching
    from checker.engine.runner import check as run_check
    from checker.sandbox import warm

    warm.enable()  # a check at each save: each forks from one warm process
    workspace = common.workspace()
    kata = find_kata(kata_key) if kata_key else next_kata(workspace)
    if kata is None:
        echo(click.style("Every kata passes here: well done.", fg="green", bold=True) + " Next: `kata quiz` for "
             "questions, `kata mock` for a timed interview, `kata review` for today's review set, or "
             "`kata watch ID` to watch one kata again.")
        return
    readable(catalog.learner_file(kata, workspace))
    paths = {k: catalog.learner_file(k, workspace) for k in catalog.all_katas()}
    clock = _clock(ctx)
    checks, banner, current, named = 0, None, kata, kata

    def step(kata):
        nonlocal checks, banner, current
        current = kata
        if not paths[kata].is_file():
            return None
        result = run_check(kata, paths[kata], seed=learner_seed(workspace, kata))
        record = record_checks(workspace, [result])
        checks += 1
        following = next_kata(workspace, record) if result.status == "passed" else None
        click.clear()
        if result.status == "passed" and kata_key and kata == named:  # `kata watch 01`: watch 01, passed or not
            echo(render.watch_text(result, kata_prompts(kata), checks, datetime.fromtimestamp(clock.wall()),
                                   f"✓ {kata} passes. Watching it: each save checks it again (Ctrl-C leaves).",
                                   "Other katas' saves are checked too" + (f"; next not passed: {following}."
                                                                         if following else ".")))
            banner = None
            return None
        if result.status == "passed" and following is not None:
            banner = f"✓ {kata} passed ({len(result.tests)} of {len(result.tests)} checks). Next: {following}."
            return following
        done = "Every kata passes. Next: `kata quiz`, `kata mock` for a timed interview, or `kata review`." \
            if result.status == "passed" else None
        echo(render.watch_text(result, kata_prompts(kata, result.frontend), checks, datetime.fromtimestamp(clock.wall()), banner, done))
        banner = None
        return watching.STOP if done else None

    try:
        watching.follow(paths, kata, step, poll=poll, clock=clock, max_checks=max_checks)
    except KeyboardInterrupt:
        echo(f"\nStopped watching {current}.")


@cli.command()
@click.option("--kata", "kata_key", metavar="ID",
              help="The kata to do (default: one drawn among those that do not pass now).")
@click.option("--minutes", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Time to make the kata pass.")
@click.option("--seed", type=int, help="Draws the kata and the questions (printed in the report).")
@click.option("--report", "report_path", type=click.Path(path_type=Path),
              help="Also write the report to PATH: Markdown if PATH ends in .md, JSON otherwise.")
@click.option("--poll", type=click.FloatRange(min=0.01), default=0.5, show_default=True,
              help="Seconds between looks at the file.")
@click.option("--coach", is_flag=True, help="Name the bugs and their fixes, as `kata check` does (default: strict).")
@click.pass_context
def mock(ctx, kata_key, minutes, seed, report_path, poll, coach):
    """A timed mock interview: make one kata pass against the clock, then answer three questions on it.

    The mock starts from a fresh stub in its own file, .kata/mock/NN_slug.py (your katas/ file is
    left alone), and says which kata it drew and why. It shows the brief and the time left and checks
    that file at each save, strictly as an interviewer would: the status and the checks that fail,
    no bug names and no fixes (--coach shows them). Once it passes, three quiz questions of that kata
    follow (untimed; answers as in `kata quiz`). Running out of time or Ctrl-C ends the mock with its
    report: status (passed, out of time, stopped), time to pass, attempts, bugs hit on the way, hints
    used, quiz score. The report is printed as Markdown and kept in .kata/mocks/ as .md and .json,
    with your attempt as .py.

    Example:

    \b
        kata mock
        kata mock --kata softmax --minutes 20 --seed 7 --report softmax-mock.md
        kata mock --coach
    """
    from checker.practice import progress
    from checker.present import render, reports

    import random

    from checker.practice import mock as mocks
    from checker.practice import quiz as quizzes
    from checker.engine.runner import check as run_check
    from checker.engine.runner import display_path
    from checker.sandbox import warm

    if report_path and not report_path.parent.is_dir():
        raise UsageProblem(f"no such folder for the report: {report_path.parent}")
    workspace = common.workspace()
    seed = random.randrange(10**6) if seed is None else seed
    record = load_progress(workspace)
    if kata_key:
        kata, why = find_kata(kata_key), "You chose it (--kata)."
    else:
        katas = catalog.all_katas()
        kata, why = mocks.pick(katas, record.unpassed(katas, {k.id: file_digest(k, workspace) for k in katas}), seed)
    texts = kata_prompts(kata)
    try:
        path = mocks.fresh_copy(kata, workspace)
    except OSError as error:
        raise click.ClickException(f"could not start the mock's file: {error}") from None
    hints_before = record.of(kata.id).hints_used
    warm.enable()  # a check at each save: each forks from one warm process
    session = mocks.Session(kata, path, minutes, seed, _clock(ctx))
    file = display_path(path)

    def check(path):
        return run_check(kata, path)  # the mock's own file: its checks are the report's, not kata list's

    def show(result):
        click.clear()
        echo(render.mock_screen(kata, texts, session.seconds_left(), file, mocks.QUESTIONS, result, session.attempts,
                                strict=not coach, why=why))

    def ask(asked):
        echo(click.style(f"\nPassed. {layout.counted(len(asked), 'question')} on it, untimed:\n", bold=True))
        try:
            quizzes.run(asked, *_quiz_io())
        except click.Abort:  # click's prompt turns Ctrl-C into Abort
            raise KeyboardInterrupt from None

    echo(render.mock_screen(kata, texts, session.seconds_left(), file, mocks.QUESTIONS, strict=not coach, why=why))
    status = session.run(check, show, ask, texts.questions, poll=poll, on_tick=_ticker(session))
    if status != mocks.PASSED:
        echo(f"\n{'Time is up' if status == mocks.OUT_OF_TIME else 'Stopped'}.")
    if session.asked:
        _keep_answers(session.asked)
    hints_after = progress.load(workspace).of(kata.id).hints_used  # `kata hint` in another terminal
    report = session.report(status, max(0, hints_after - hints_before))
    markdown = reports.mock_markdown(report)
    echo("\n" + reports.fitted_markdown(markdown))
    try:
        saved = mocks.save(report, markdown, workspace / ".kata" / "mocks", attempt=path)
        written = mocks.write(report, markdown, report_path) if report_path else None
    except OSError as error:
        click.echo(f"warning: report not saved: {error}", err=True)
        sys.exit(0 if status == mocks.PASSED else 1)
    echo(f"Kept as {display_path(saved[0])}, .json and .py (your attempt)" + (f"; written to {display_path(written)}" if written else ""))
    sys.exit(0 if status == mocks.PASSED else 1)  # the README's rule: 0 only for passed


def _ticker(session):
    """On a terminal, the time left on the last line, redrawn each second; elsewhere nothing."""
    from checker.present import render

    if not sys.stdout.isatty():
        return None
    shown = None

    def tick():
        nonlocal shown
        left = render.clock_text(session.seconds_left())
        if left != shown:
            shown = left
            click.echo(f"\r{click.style(left + ' left', fg='cyan', bold=True)} ", nl=False, color=render.color_wanted())

    return tick


@cli.command()
@click.argument("kata_key", metavar="ID")
@click.option("--file", "file", type=click.Path(path_type=Path),
              help="Time this .py file instead of katas/NN_slug.py.")
@click.option("--sizes", help="Sizes to time, comma-separated: cache lengths n for kata 05 (default "
              "128,256,512,1024,2048), key counts n_k for kata 08 (default 1024,2048,4096,8192,16384).")
def bench(kata_key, file, sizes):
    """Time a decode step with your KV cache against recomputing attention from scratch (kata 05); measure
    your flash attention's memory and time against plain attention (kata 08).

    A benchmark to learn from, not a check: for kata 05 it shows the time to make one new token at each
    cache length n, yours beside the reference's and beside kata 04's attention over the whole prefix.

    Example:

    \b
        kata bench 05
        kata bench kv-cache --file my-try.py --sizes 256,1024
        kata bench 08 --sizes 1024,16384
    """
    from checker.present import reports

    kata = find_kata(kata_key)
    own = kata.part("bench")  # a kata may bring its own bench, in its folder (kata 08)
    if own is not None:
        return _own_bench(own, kata, file, sizes)
    from checker.practice import bench as benchmark

    if kata.slug != benchmark.BENCHED:
        others = ", ".join(str(k) for k in catalog.all_katas() if k.part("bench") is not None)
        raise UsageProblem(f"kata bench times kata 05 ({benchmark.BENCHED}) only" + (f", and {others}" if others else "")
                           + f", not {kata}")
    sizes = sizes or "128,256,512,1024,2048"
    path = readable(file) if file else readable(catalog.learner_file(kata, common.workspace()))
    sizes = _sizes(sizes)

    def progress(text):  # on stderr: stdout stays the report
        click.echo(f"  {text} ...", err=True)

    click.echo(f"Timing n = {', '.join(map(str, sizes))}, {benchmark.ROUNDS} rounds each (about 10 s):", err=True)
    try:
        result = benchmark.run(kata, path, sizes, progress=progress)
    except benchmark.BenchError as error:
        raise click.ClickException(str(error)) from None
    echo(reports.bench_text(result))


def _own_bench(own, kata, file, sizes):
    """A kata's own bench (checker/hidden/<slug>/bench.py): parse_sizes, run, report."""
    from checker.engine.runner import display_path

    try:
        chosen = own.parse_sizes(sizes)
    except ValueError as error:
        raise UsageProblem(str(error)) from None
    path = readable(file) if file else readable(catalog.learner_file(kata, common.workspace()))
    try:
        echo(own.report(own.run(kata, path, chosen), display_path(path)))
    except own.BenchError as error:
        raise click.ClickException(str(error)) from None


MAX_BENCH_SIZE = 4096


def _sizes(text):
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise UsageProblem(f"--sizes takes cache lengths like 128,256,512, not {text!r}")
    if max(sizes) > MAX_BENCH_SIZE:
        raise UsageProblem(f"--sizes goes up to {MAX_BENCH_SIZE}: recomputing attention at n = {max(sizes)} "
                           "needs gigabytes of n x n tables")
    return sizes

"""The `kata` command. Each command parses, calls one function of the package, and prints.

Heavy modules (NumPy, the runner) are imported inside commands, so `kata --help` stays instant and
`kata check` starts the learner's process before the parent loads NumPy.
"""

import json
import os
import sys
from pathlib import Path

import click

from checker import __version__, catalog, progress, prompts, render


class UsageProblem(click.ClickException):
    """A user mistake (unknown kata, missing file): one line, exit code 2."""

    exit_code = 2


def _kata(key):
    try:
        return catalog.find(key)
    except catalog.UnknownKata as error:
        raise UsageProblem(str(error)) from None


def _prompts(kata):
    try:
        return prompts.for_kata(kata)
    except prompts.PromptsError as error:
        raise click.ClickException(str(error)) from None


def _progress(workspace):
    record = progress.load(workspace)
    if record.warning:
        click.echo(f"warning: {record.warning}", err=True)
    return record


def _echo(text):
    click.echo(text, color=render.color_wanted())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="kata")
def cli():
    """Practise the attention questions of ML interviews by hand.

    Edit a stub in katas/, then let the checker tell you what is right and name what is wrong.

    Example:

    \b
        kata list
        kata check 01
        kata watch
        kata hint softmax
        kata mock --minutes 45
    """


@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
def list_katas(as_json):
    """List the katas with your progress on each in this workspace: status, checks run (attempts),
    hints used and the time from the first check to the first pass.

    Example:

    \b
        kata list
        kata list --json
    """
    record = _progress(catalog.find_workspace())
    rows = [(kata, _prompts(kata).title, record.of(kata.id)) for kata in catalog.all_katas()]
    if as_json:
        click.echo(json.dumps([{"id": k.id, "slug": k.slug, "title": t, "status": e.status, "attempts": e.attempts,
                                "hints_used": e.hints_used, "seconds_to_pass": e.seconds_to_pass,
                                "bugs_seen": e.bugs_seen} for k, t, e in rows]))
    else:
        _echo(render.list_text(rows))


@cli.command()
@click.argument("kata_key", metavar="ID", required=False)
@click.option("--file", "file", type=click.Path(path_type=Path),
              help="Check this .py file instead of katas/NN_slug.py.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (see SPEC.md) and nothing else.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds the learner's code may take in all.")
@click.option("--all", "check_all", is_flag=True, help="Check every kata.")
def check(kata_key, file, as_json, timeout, check_all):
    """Check a kata (ID like 01 or 1, or a slug like softmax) and name the bugs found.

    Exit code: 0 passed, 1 anything else, 2 a usage mistake.

    Example:

    \b
        kata check 01
        kata check softmax --file my-try.v2.py --json
        kata check --all
    """
    if check_all == bool(kata_key):
        raise UsageProblem("give one kata ID (e.g. `kata check 01`) or --all")
    if check_all and file:
        raise UsageProblem("--file checks one kata: give its ID instead of --all")
    katas = catalog.all_katas() if check_all else [_kata(kata_key)]
    workspace = catalog.find_workspace()
    paths = [_readable(file) if file else catalog.learner_file(kata, workspace) for kata in katas]
    for path in paths:
        _readable(path)

    from checker.runner import check as run_check
    from checker.sandbox import Limits

    results = [run_check(kata, path, Limits(seconds=timeout)) for kata, path in zip(katas, paths)]
    if not file:
        _record(workspace, results)
    if as_json:
        objects = [r.to_json() for r in results]
        click.echo(json.dumps({"katas": objects} if check_all else objects[0]))
    else:
        # a pass needs no brief and no fixes: prompts.yaml is read only for the rest
        _echo("\n\n".join(render.check_text(r, None if r.status == "passed" else _prompts(k))
                            for r, k in zip(results, katas)))
    sys.exit(0 if all(r.status == "passed" for r in results) else 1)


def _readable(path):
    path = Path(path)
    if not path.is_file():
        raise UsageProblem(f"no such file: {path}")
    if not os.access(path, os.R_OK):
        raise UsageProblem(f"cannot read {path}")
    return path


def _record(workspace, results):
    record = _progress(workspace)
    for result in results:
        record.record_check(result.kata, result.status.value, result.bugs)
    _save(record)


def _save(record):
    try:
        record.save()
    except OSError as error:
        click.echo(f"warning: progress not saved: {error}", err=True)


@cli.command()
@click.argument("kata_key", metavar="ID")
def hint(kata_key):
    """Reveal the next hint for a kata, one level at a time.

    Example:

    \b
        kata hint 02
    """
    kata = _kata(kata_key)
    hints = _prompts(kata).hints
    workspace = catalog.find_workspace()
    record = _progress(workspace)
    entry = record.of(kata.id)
    entry.hints_used = min(entry.hints_used + 1, len(hints))
    for level, text in enumerate(hints[:entry.hints_used], start=1):
        _echo(click.style(f"Hint {level} of {len(hints)}", bold=True) + f"\n{text}\n")
    if entry.hints_used == len(hints):
        _echo(f"That was the last hint. The reference is one `kata solution {kata.id}` away.")
    else:
        _echo(f"Run `kata hint {kata.id}` again for the next one.")
    _save(record)


@cli.command()
@click.argument("kata_key", metavar="ID")
@click.option("--yes", "-y", is_flag=True, help="Do not ask, even if the kata has not passed yet.")
def solution(kata_key, yes):
    """Print the reference solution of a kata.

    Asks first if the kata has not passed in this workspace yet.

    Example:

    \b
        kata solution 01
    """
    kata = _kata(kata_key)
    record = _progress(catalog.find_workspace())
    if not yes and not record.of(kata.id).ever_passed:
        click.confirm(f"Kata {kata} has not passed yet. Show the reference solution anyway?", abort=True)
    click.echo(kata.solution_path.read_text(encoding="utf-8"))


@cli.command()
@click.argument("kata_key", metavar="ID")
def reset(kata_key):
    """Restore a kata's stub, keeping a backup of your file in .kata/backups/.

    Example:

    \b
        kata reset 03
    """
    kata = _kata(kata_key)
    from checker import workspace

    try:
        backup = workspace.reset(kata, catalog.find_workspace())
    except workspace.ResetError as error:
        raise click.ClickException(str(error)) from None
    if backup:
        _echo(f"Restored the stub of {kata}; your file is saved as {backup}")
    else:
        _echo(f"Restored the stub of {kata}.")


@cli.command()
@click.argument("kata_key", metavar="[ID]", required=False)
@click.option("-n", "count", type=click.IntRange(min=1), default=5, show_default=True, help="How many questions.")
@click.option("--seed", type=int, help="Ask the same questions again (the seed is printed at the end).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with every question and answer.")
@click.option("--list", "list_only", is_flag=True, help="List every question (id, kata, kind) instead.")
def quiz(kata_key, count, seed, as_json, list_only):
    """Quiz yourself on shapes, scaling and masks: every answer is computed, never memorised.

    Answers are read from the terminal, or one a line from standard input when it is not a
    terminal (the end of input leaves the rest unanswered). Shapes may be written (2, 8, 10, 10),
    2x8x10x10 or 2 8 10 10; numbers 0.333 or 1/3; choices by letter or text.

    Example:

    \b
        kata quiz
        kata quiz softmax -n 3 --seed 7
        kata quiz --list
    """
    import random

    from checker import quiz as quizzes

    katas = [_kata(kata_key)] if kata_key else catalog.all_katas()
    questions = [q for kata in katas for q in _prompts(kata).questions]
    if list_only:
        rows = [{"id": q.id, "kata": q.kata, "kind": q.kind} for q in questions]
        click.echo(json.dumps(rows) if as_json else "\n".join(f"{r['id']:<28} {r['kata']:<12} {r['kind']}" for r in rows))
        return
    if not questions:
        raise UsageProblem(f"no questions for {katas[0]} yet")
    seed = random.randrange(10**6) if seed is None else seed
    asked = quizzes.draw(questions, count, seed)
    read_reply, show = _quiz_io(err=as_json)
    correct = quizzes.run(asked, read_reply, show)
    if as_json:
        click.echo(json.dumps({"seed": seed, "asked": len(asked), "correct": correct,
                               "questions": [a.to_json() for a in asked]}))
    else:
        show(render.score_text(correct, len(asked), seed))


def _quiz_io(err=False):
    """(read_reply, show) for quiz.run: replies from the terminal, or one a line from standard input when
    it is not a terminal (its end: unanswered). `err` sends the questions to stderr (for --json)."""
    stdin = click.get_text_stream("stdin")
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
    from checker import watch

    return (ctx.obj or {}).get("clock") or watch.Clock()


@cli.command()
@click.argument("kata_key", metavar="[ID]", required=False)
@click.option("--poll", type=click.FloatRange(min=0.01), default=0.5, show_default=True,
              help="Seconds between looks at the file.")
@click.option("--max-checks", type=click.IntRange(min=1), help="Leave after this many checks (for scripts and tests).")
@click.pass_context
def watch(ctx, kata_key, poll, max_checks):
    """Re-check a kata each time its file is saved: the screen shows the status and the first failure.

    Without ID, watches the first kata that has not passed yet. A save that changes nothing is not
    checked again. Ctrl-C leaves (exit code 0).

    Example:

    \b
        kata watch
        kata watch softmax
    """
    from datetime import datetime

    from checker import watch as watching
    from checker.runner import check as run_check

    workspace = catalog.find_workspace()
    kata = _kata(kata_key) if kata_key else _progress(workspace).first_unpassed(catalog.all_katas())
    if kata is None:
        raise UsageProblem("every kata has passed here: name one to watch, e.g. `kata watch 01`")
    path = _readable(catalog.learner_file(kata, workspace))
    clock = _clock(ctx)
    checks = 0

    def on_change(path):
        nonlocal checks
        result = run_check(kata, path)
        _record(workspace, [result])
        checks += 1
        click.clear()
        _echo(render.watch_text(result, _prompts(kata), checks, datetime.fromtimestamp(clock.wall())))
        return False

    try:
        watching.loop(path, on_change, poll=poll, clock=clock, max_checks=max_checks)
    except KeyboardInterrupt:
        _echo(f"\nStopped watching {kata}.")


@cli.command()
@click.option("--kata", "kata_key", metavar="ID",
              help="The kata to do (default: one drawn among those not passed yet).")
@click.option("--minutes", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Time to make the kata pass.")
@click.option("--seed", type=int, help="Draws the kata and the questions (printed in the report).")
@click.option("--report", "report_path", type=click.Path(path_type=Path),
              help="Also write the report to PATH: Markdown if PATH ends in .md, JSON otherwise.")
@click.option("--poll", type=click.FloatRange(min=0.01), default=0.5, show_default=True,
              help="Seconds between looks at the file.")
@click.pass_context
def mock(ctx, kata_key, minutes, seed, report_path, poll):
    """A timed mock interview: make one kata pass against the clock, then answer three questions on it.

    Shows the brief and the time left, checks your file (katas/NN_slug.py) at each save, and once it
    passes asks three quiz questions of that kata (untimed; answers as in `kata quiz`). Running out of
    time or Ctrl-C ends the mock with its report: status (passed, out of time, stopped), time to pass,
    attempts, bugs hit on the way, hints used, quiz score. The report is printed as Markdown and kept
    in .kata/mocks/ as .md and .json.

    Example:

    \b
        kata mock
        kata mock --kata softmax --minutes 20 --seed 7 --report softmax-mock.md
    """
    import random

    from checker import mock as mocks
    from checker import quiz as quizzes
    from checker.runner import check as run_check
    from checker.runner import display_path

    if report_path and not report_path.parent.is_dir():
        raise UsageProblem(f"no such folder for the report: {report_path.parent}")
    workspace = catalog.find_workspace()
    seed = random.randrange(10**6) if seed is None else seed
    record = _progress(workspace)
    kata = _kata(kata_key) if kata_key else mocks.pick(catalog.all_katas(), record, seed)
    path = _readable(catalog.learner_file(kata, workspace))
    texts = _prompts(kata)
    hints_before = record.of(kata.id).hints_used
    session = mocks.Session(kata, path, minutes, seed, _clock(ctx))
    file = display_path(path)

    def check(path):
        result = run_check(kata, path)
        _record(workspace, [result])
        return result

    def show(result):
        click.clear()
        _echo(render.mock_screen(kata, texts, session.seconds_left(), file, mocks.QUESTIONS, result, session.attempts))

    def ask(asked):
        _echo(click.style(f"\nPassed. {len(asked)} questions on it, untimed:\n", bold=True))
        try:
            quizzes.run(asked, *_quiz_io())
        except click.Abort:  # click's prompt turns Ctrl-C into Abort
            raise KeyboardInterrupt from None

    _echo(render.mock_screen(kata, texts, session.seconds_left(), file, mocks.QUESTIONS))
    status = session.run(check, show, ask, texts.questions, poll=poll, on_tick=_ticker(session))
    if status != mocks.PASSED:
        _echo(f"\n{'Time is up' if status == mocks.OUT_OF_TIME else 'Stopped'}.")
    hints_after = progress.load(workspace).of(kata.id).hints_used  # `kata hint` in another terminal
    report = session.report(status, max(0, hints_after - hints_before))
    markdown = render.mock_markdown(report)
    _echo("\n" + markdown)
    try:
        saved = mocks.save(report, markdown, workspace / ".kata" / "mocks")
        written = mocks.write(report, markdown, report_path) if report_path else None
    except OSError as error:
        click.echo(f"warning: report not saved: {error}", err=True)
        return
    _echo(f"Kept as {display_path(saved[0])} and .json" + (f"; written to {display_path(written)}" if written else ""))


def _ticker(session):
    """On a terminal, the time left on the last line, redrawn each second; elsewhere nothing."""
    if not click.get_text_stream("stdout").isatty():
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
@click.option("--sizes", default="128,256,512,1024,2048", show_default=True,
              help="Cache lengths n to time, comma-separated.")
def bench(kata_key, file, sizes):
    """Time a decode step with your KV cache against recomputing attention from scratch (kata 05).

    A benchmark to learn from, not a check: it shows the time to make one new token at each cache
    length n, yours beside the reference's and beside kata 04's attention over the whole prefix.

    Example:

    \b
        kata bench 05
        kata bench kv-cache --file my-try.py --sizes 256,1024
    """
    kata = _kata(kata_key)
    from checker import bench as benchmark

    if kata.slug != benchmark.BENCHED:
        raise UsageProblem(f"kata bench times kata 05 ({benchmark.BENCHED}) only, not {kata}")
    path = _readable(file) if file else _readable(catalog.learner_file(kata, catalog.find_workspace()))
    try:
        result = benchmark.run(kata, path, _sizes(sizes))
    except benchmark.BenchError as error:
        raise click.ClickException(str(error)) from None
    _echo(render.bench_text(result))


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


@cli.command()
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--katas", "kata_keys", default=None, metavar="IDS",
              help="The katas to pack, comma-separated (e.g. 01,03,05)  [default: every kata]")
@click.option("--seed", type=int, help="Draws the shapes of the public and hidden checks  [default: a random one, "
                                       "printed]")
@click.option("--minutes", type=click.IntRange(min=1), help="Time the README gives the candidate  "
                                                            "[default: 20 per kata]")
def pack(folder, kata_keys, seed, minutes):
    """Make a candidate's workspace in DIR: the stubs, a README and the public checks only.

    The pack holds no reference, hidden test, bug catalogue or quiz answer. Its manifest,
    kata-pack.json, records the katas and the seed that `kata grade` uses. The same katas
    and seed give the same pack, byte for byte.

    Example:

    \b
        kata pack interviews/ada --katas 01,03,05 --seed 41
        kata grade interviews/ada
    """
    import random

    from checker import pack as packing

    katas = _kata_list(kata_keys) if kata_keys is not None else catalog.all_katas()
    seed = random.randrange(10**6) if seed is None else seed
    try:
        made = packing.make(folder, katas, seed, minutes)
    except packing.PackError as error:
        raise UsageProblem(str(error)) from None
    for warning in made.warnings:
        click.echo(f"warning: {warning}", err=True)
    _echo(render.pack_text(made))


def _kata_list(text):
    keys = [key.strip() for key in text.split(",") if key.strip()]
    if not keys:
        raise UsageProblem(f"--katas takes kata ids like 01,03,05, not {text!r}")
    return [_kata(key) for key in keys]


@cli.command()
@click.argument("folders", metavar="DIR...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--seed", type=int, help="Grade with this seed instead of each pack's own.")
@click.option("--jobs", type=click.IntRange(min=1), help="Checks run at once  [default: the number of CPUs]")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds each kata's code may take in all.")
@click.option("--report", "report_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the Markdown report here (the state file goes beside it).")
@click.option("--resume", is_flag=True, help="Skip the workspaces an interrupted run already graded.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object and nothing else.")
def grade(folders, seed, jobs, timeout, report_path, resume, as_json):
    """Grade candidates' workspaces with the hidden tests, in parallel, each kata in its sandbox.

    Each workspace is graded on the katas and seed of its kata-pack.json (a folder without one: every
    kata file in its katas/, default seed). Finished workspaces are saved at once in a state file
    (PATH.state.jsonl beside --report, else kata-grade.state.jsonl here): after an interruption,
    --resume grades only the rest. Without --resume an earlier state file is started afresh.
    Exit code 0 once the batch is graded, whatever the candidates scored; 2 for a usage mistake.

    Example:

    \b
        kata grade interviews/* --report grades.md
        kata grade interviews/* --report grades.md --resume
        kata grade interviews/ada --json --timeout 5
    """
    from checker import grade as grading
    from checker.sandbox import Limits

    try:
        workspaces = [grading.open_workspace(folder, seed) for folder in folders]
    except grading.GradeError as error:
        raise UsageProblem(str(error)) from None
    if report_path and not report_path.parent.is_dir():
        raise UsageProblem(f"no such folder for the report: {report_path.parent}")
    state = grading.state_path(report_path)
    jobs = jobs or os.cpu_count() or 1
    show_progress = sys.stderr.isatty()

    def progress(done, total):
        click.echo(f"\rgraded {done} of {total} workspaces", err=True, nl=done == total)

    if not resume and grading.holds_a_batch(state):
        click.echo(f"note: {state} holds an earlier batch; starting afresh (--resume would continue it)", err=True)
    try:
        result = grading.grade(workspaces, Limits(seconds=timeout), jobs, state, resume,
                               progress if show_progress else None)
    except grading.GradeError as error:
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted: finished workspaces are saved in {state}; run the same command with --resume "
                   "to grade the rest", err=True)
        sys.exit(130)
    if report_path:
        report_path.write_text(render.grade_markdown(result), encoding="utf-8")
    if as_json:
        if result.resumed:
            click.echo(f"{result.resumed} workspaces finished in an earlier run ({state}), not graded again", err=True)
        click.echo(json.dumps(result.to_json()))
    else:
        _echo(render.grade_text(result, report_path))

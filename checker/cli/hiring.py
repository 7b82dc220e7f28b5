"""Commands for hiring teams: pack a candidate workspace, grade a batch of them."""

import json
import os
import sys
from pathlib import Path

import click

from checker.engine import catalog
from checker.present import escape
from checker.cli import cli
from checker.cli.common import Problem, UsageProblem, echo, find_kata
from checker.sandbox import DEFAULT_SECONDS


@cli.command()
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--katas", "kata_keys", default=None, metavar="IDS",
              help="The katas to pack, comma-separated (e.g. 01,03,05)  [default: every kata]")
@click.option("--seed", type=int, help="Draws the shapes of the public and hidden checks  [default: a random one, "
                                       "printed]")
@click.option("--minutes", type=click.IntRange(min=1), help="Time the README gives the candidate  "
                                                            "[default: 20 per kata]")
@click.option("--weights", "rubric", metavar="RUBRIC",
              help="Each kata's weight in the total score: 03=2,05=3 or a YAML file {kata: weight}  [default: 1 each]")
@click.option("--allow", "allow", type=click.Choice(["torch"]), multiple=True,
              help="Also accept PyTorch answers (the README says so)  [default: NumPy only]")
def pack(folder, kata_keys, seed, minutes, rubric, allow):
    """Make a candidate's workspace in DIR: the stubs, a README and the public checks only.

    The pack holds no reference, hidden test, bug catalogue or quiz answer, and speaks only of the
    katas it holds. What was issued (a pack id, katas, seed, version, time, each stub's SHA-256) is
    appended to kata-roster.jsonl beside DIR, with the team's key kata-roster.key that seals the
    pack id in the pack's kata-pack.json: keep both, on your side. `kata grade` finds the record by
    that id wherever the pack went, and takes the katas, seed, minutes and --weights from it. The same
    katas and seed give the same pack, byte for byte, but for its id and seal.

    Example:

    \b
        kata pack interviews/ada --katas 01,03,05 --seed 41
        kata pack interviews/bob --katas 01,03,05 --seed 42 --weights 03=2,05=3
        kata grade interviews/ada interviews/bob --html review.html
    """
    import random

    from checker.hiring import report as reports

    from checker.hiring import pack as packing
    from checker.hiring import scoring

    katas = _kata_list(kata_keys) if kata_keys is not None else catalog.all_katas()
    seed = random.randrange(10**6) if seed is None else seed
    try:
        weights = scoring.parse_rubric(rubric) if rubric else None
        made = packing.make(folder, katas, seed, minutes, weights, ("numpy", *allow))
    except (packing.PackError, scoring.RubricError) as error:
        raise UsageProblem(str(error)) from None
    for kata_id in sorted(set(weights or {}) - {kata.id for kata in made.katas}):
        click.echo(f"warning: --weights gives kata {kata_id} a weight, but the pack does not hold kata {kata_id}: "
                   "ignored", err=True)
    for warning in made.warnings:
        click.echo(f"warning: {escape.terminal(warning)}", err=True)
    echo(reports.pack_text(made))


def _kata_list(text):
    keys = [key.strip() for key in text.split(",") if key.strip()]
    if not keys:
        raise UsageProblem(f"--katas takes kata ids like 01,03,05, not {text!r}")
    return [find_kata(key) for key in keys]


@cli.command()
@click.argument("folders", metavar="DIR...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--seed", type=int, help="Grade with this seed instead of each pack's own.")
@click.option("--jobs", type=click.IntRange(min=1), help="Checks run at once  [default: the number of CPUs]")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=DEFAULT_SECONDS, show_default=True,
              help="Seconds each kata's code may take in all.")
@click.option("--report", "report_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the Markdown report here (the state file goes beside it).")
@click.option("--resume", is_flag=True, help="Skip the workspaces an interrupted run already graded.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object and nothing else.")
@click.option("--roster", type=click.Path(path_type=Path, dir_okay=False),
              help="The roster `kata pack` wrote  [default: kata-roster.jsonl beside each workspace, else here]")
@click.option("--insecure", is_flag=True, help="Grade even where the sandbox cannot fully isolate candidate code.")
@click.option("--csv", "csv_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write one CSV row per candidate and kata here.")
@click.option("--html", "html_path", type=click.Path(path_type=Path),
              help="Write the review page: PATH.html one self-contained file; DIR an index.html and a page per "
                   "candidate (to share one alone).")
@click.option("--without-torch", is_flag=True,
              help="Go on where files written in PyTorch cannot run here: those katas are not graded, not scored.")
def grade(folders, seed, jobs, timeout, report_path, resume, as_json, roster, insecure, csv_path, html_path,
          without_torch):
    """Grade candidates' workspaces with the hidden tests, in parallel, each kata in an isolated sandbox.

    Each workspace is graded on the katas and seed `kata pack` recorded in its roster, found by the
    sealed pack id of its kata-pack.json wherever the folder now is (a copy, unpacked zips, a clone);
    a manifest that disagrees is flagged, never obeyed, and a workspace with no matching record is
    graded on its own manifest and flagged UNMATCHED. Kata files that are links leaving
    the workspace or not regular files are refused and flagged; a broken workspace is one error row.
    Finished workspaces are saved at once in a signed state file (PATH.state.jsonl beside --report,
    else kata-grade.state.jsonl here): after an interruption, --resume grades only the rest, and again
    any workspace whose files changed. Without --resume an earlier state file is started afresh.
    Refuses to run where candidate code cannot be fully isolated, unless --insecure.
    Each kata scores the weighted share of its hidden checks passed; candidates are ranked by their
    total (the roster's --weights), with the time their files show and pairs of near-identical files.
    Exit code 0 once the batch is graded, whatever the candidates scored; 2 for a usage mistake.

    Example:

    \b
        kata grade interviews/* --report grades.md --csv grades.csv --html review.html
        kata grade interviews/* --report grades.md --resume --html review/
        kata grade returned/* --roster interviews/kata-roster.jsonl
        kata grade interviews/ada --json --timeout 5
    """
    from checker.hiring import exports, review_page, scoring
    from checker.hiring import report as reports
    from checker.hiring import grade as grading
    from checker.sandbox import Limits

    folders = [folder for folder in folders if not _team_file(folder)]  # `kata grade interviews/*` holds them
    if not folders:
        raise UsageProblem("no workspace to grade: give the candidates' folders (kata grade interviews/*)")
    state = grading.state_path(report_path)
    unpacked = state.with_name("kata-grade.unzipped")  # returned zips, unpacked by the grader beside its state
    try:
        workspaces = grading.flag_shared_records(
            [grading.open_workspace(folder, seed, roster, unpacked) for folder in dict.fromkeys(folders)])
    except grading.GradeError as error:
        raise UsageProblem(str(error)) from None
    torch_files = grading.needs_torch(workspaces)
    if torch_files:
        where = ", ".join(f"{escape.terminal(w.path)} kata {kata_id}" for w, kata_id in torch_files[:4])
        more = f" and {len(torch_files) - 4} more" if len(torch_files) > 4 else ""
        line = (f"torch is needed: {len(torch_files)} file{'s' if len(torch_files) > 1 else ''} written in PyTorch "
                f"({where}{more}) cannot run here; install it (pip install -e \".[torch]\", or pip install torch) "
                "and grade again")
        if not without_torch:
            raise UsageProblem(line + ", or pass --without-torch to grade the rest (those katas not scored)")
        click.echo(f"warning: {line}; --without-torch: those katas are not graded and not scored", err=True)
    for path in (report_path, csv_path, html_path):
        if path and not path.parent.is_dir():
            raise UsageProblem(f"no such folder for the report: {path.parent}")
    limits = Limits(seconds=timeout, message_bytes=16 * 2**20, strict=not insecure)
    try:
        isolation = {**grading.probe_isolation(limits), "insecure": insecure}
    except grading.GradeError as error:  # the grader's own machine (a full disk)
        raise click.ClickException(str(error)) from None
    if isolation["level"] != "full":
        missing = "; ".join(f"{wall}: {why}" for wall, why in isolation["missing"].items())
        if not insecure:
            raise Problem(f"candidate code cannot be fully isolated here ({missing}): grades could be "
                                       "forged. Grade on Linux with Landlock, or accept it with --insecure")
        click.echo(f"warning: reduced isolation ({missing}): the report says so", err=True)
    jobs = jobs or os.cpu_count() or 1
    bar = _ProgressBar() if sys.stderr.isatty() and not as_json else None

    if not resume and grading.holds_a_batch(state):
        click.echo(f"note: {escape.terminal(state)} holds an earlier batch; starting afresh (--resume would "
                   "continue it)", err=True)
    try:
        with bar or _nothing(), grading.stopped_by_signals():
            result = grading.grade(workspaces, limits, jobs, state, resume, bar, isolation)
    except grading.GradeError as error:
        raise Problem(str(error)) from None
    except KeyboardInterrupt as stop:
        how = getattr(stop, "signal_name", "Ctrl-C")
        click.echo(f"\ninterrupted ({how}): every process the grade started has ended; finished workspaces are saved "
                   f"in {escape.terminal(state)}; run the same command with --resume to grade the rest", err=True)
        sys.exit(130)
    batch = scoring.assess(result)
    if report_path:
        report_path.write_text(reports.grade_markdown(batch), encoding="utf-8")
    if csv_path:
        csv_path.write_text(exports.csv_text(batch), encoding="utf-8")
    if html_path:
        review_page.write(batch, html_path)
    if as_json:
        if result.resumed:
            click.echo(f"{result.resumed} workspaces finished in an earlier run ({escape.terminal(state)}), not graded "
                       "again", err=True)
        click.echo(json.dumps(exports.batch_json(batch)))
    else:
        written = [path for path in (csv_path, html_path) if path]
        echo("\n\n".join(text for text in (reports.grade_text(result, report_path), exports.ranking_text(batch),
                                            exports.pairs_text(batch)) if text)
             + "".join(f"\nWritten: {escape.terminal(path)}" for path in written))


def _team_file(path):
    """The roster and its key, which `kata pack` writes beside the workspaces: not a workspace to grade."""
    from checker.engine.catalog import ROSTER
    from checker.hiring.roster import KEY

    return path.is_file() and path.name in (ROSTER, KEY)


class _ProgressBar:
    """`kata grade`'s progress on a terminal: a click progress bar, made once the number to grade is known,
    naming the candidate who just finished and the time left (at the pace so far)."""

    def __init__(self):
        self.bar, self.started = None, None

    def __call__(self, done, total, finished=None):
        import time

        from checker.present import escape
        from checker.present.render import duration

        if self.bar is None:
            self.started = time.monotonic()
            self.bar = click.progressbar(length=total, label="grading", file=sys.stderr, show_pos=True,
                                         show_eta=False, item_show_func=lambda text: text)
            self.bar.__enter__()
        text = None
        if finished is not None:
            left = (time.monotonic() - self.started) / max(done, 1) * (total - done)
            text = f"{escape.terminal(finished)[-40:]} done, about {duration(left)} left"
        self.bar.update(done - self.bar.pos, text)

    def __enter__(self):
        return self

    def __exit__(self, *failure):
        if self.bar is not None:
            self.bar.__exit__(*failure)


def _nothing():
    import contextlib

    return contextlib.nullcontext()

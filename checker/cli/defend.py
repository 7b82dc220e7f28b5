"""`kata defend`: questions about your own passing file, answered by running it."""

import json
import sys
from pathlib import Path

import click

from checker.engine import catalog
from checker.cli import cli, common
from checker.cli.common import UsageProblem, echo, find_kata, learner_seed, readable


@cli.command()
@click.argument("kata_key", metavar="ID")
@click.option("--file", "file", type=click.Path(path_type=Path), help="Defend this .py file instead of katas/NN_slug.py.")
@click.option("-n", "count", type=click.IntRange(min=1, max=8), default=4, show_default=True, help="How many questions.")
@click.option("--seed", type=int, help="Ask the same questions again (the seed is printed at the end).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the questions and their computed answers as one JSON object; ask nothing.")
def defend(kata_key, file, count, seed, as_json):
    """Defend your solution: follow-up questions about your own passing file, each answered by running
    it in the sandbox (what if this line were removed? what shape does this value have on an edge
    input? how much memory does it hold?).

    The file must pass `kata check` first. Answers are read as the quiz reads them (from the terminal,
    or one a line from standard input); Ctrl-C stops and prints the score. Missed questions join
    `kata review`; the score shows in `kata list`.

    Example:

    \b
        kata defend 05
        kata defend softmax --file my-try.py -n 2 --seed 7
        kata defend 02 --json
    """
    import random

    from checker.practice import defend as defending
    from checker.practice import defend_session as session
    from checker.present import defend_text as text
    from checker.sandbox import read_learner_file, warm

    kata = find_kata(kata_key)
    if defending.spec(kata) is None:
        raise UsageProblem(f"kata {kata} has no defence questions yet")
    workspace = common.workspace()
    path = readable(file) if file else readable(catalog.learner_file(kata, workspace))
    try:
        source = read_learner_file(path)
    except (OSError, ValueError) as error:
        raise UsageProblem(f"cannot read {path}: {error}") from None
    seed = random.randrange(10**6) if seed is None else seed
    warm.enable()  # the check, then a child per mutant: each a fork of one warm process
    defence = session.defend_file(kata, path, source, count, seed, check_seed=learner_seed(workspace, kata))
    if defence.refused:
        click.echo(defence.refused, err=True)
        sys.exit(1)
    if as_json:  # the schema, nothing more; the seed that asks them again goes to stderr
        click.echo(json.dumps(defence.to_json()))
        click.echo(f"`{session.replay_command(kata, count, seed, file)}` asks the same questions", err=True)
        return
    if not defence.questions:
        echo(f"No defence question tells anything about this file of kata {kata} (seed {seed}).")
        return
    from checker.cli.practice import _quiz_io

    read_reply, show = _quiz_io()
    replay = session.replay_command(kata, count, seed, file)
    show(text.intro_text(defence) + "\n")
    try:
        right = session.run_session(defence, read_reply, show)
    except (KeyboardInterrupt, click.Abort):
        done_right, done = session.score(defence)
        _keep(kata, defence, seed, file)
        show("\n" + text.score_text(done_right, len(defence.questions), replay, answered=done))
        sys.exit(1)
    _keep(kata, defence, seed, file)
    show(text.score_text(right, len(defence.questions), replay))


def _keep(kata, defence, seed, file):
    """The score and the missed questions, for `kata list` and `kata review` (the learner's own file only)."""
    if file:
        return
    from checker.cli.common import load_progress, save

    record = load_progress(common.workspace())
    record.record_defence(kata.id, defence, seed)
    save(record)

"""Commands for the project's contributors: `kata dev check`."""

import json
import sys

import click

from checker.engine import catalog
from checker.cli import cli
from checker.cli.common import Problem, echo, find_kata


@cli.group()
def dev():
    """Commands for contributors who add or change a kata.

    Example:

    \b
        kata dev check
        kata dev check 03
    """


@dev.command("check")
@click.argument("kata_key", metavar="[ID]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object and nothing else.")
def dev_check(kata_key, as_json):
    """Check that a kata (or every kata) has all its pieces, and that they agree.

    Lists each missing or inconsistent piece: a bug id without a zoo file or a fix, a variant of no
    catalogued bug, a stub that is not its reference minus the bodies, fewer than three hints, a quiz
    question without its answer function, a docstring example that fails. It runs no learner code:
    `pytest -k SLUG` runs the kata's self-checks (every zoo file fails and is named, ...).
    Exit code: 0 nothing missing, 1 something missing, 2 an unknown kata.

    Example:

    \b
        kata dev check
        kata dev check 03 --json
    """
    from checker.engine import devcheck
    from checker.present import render

    if not catalog.is_checkout():
        raise Problem("kata dev check checks a checkout of kata's repository (katas/, solutions/, checker/): "
                      f"this kata is installed as a package, in {catalog.ROOT}")
    katas = [find_kata(kata_key)] if kata_key else catalog.all_katas()
    report = devcheck.check(katas)
    if as_json:
        click.echo(json.dumps(report.to_json()))
    else:
        echo(render.dev_check_text(report))
    sys.exit(0 if report.ok else 1)

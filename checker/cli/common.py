"""What every command shares: user mistakes, finding a kata, its prompts, the learner's progress."""

import os
from pathlib import Path

import click

from checker import catalog


class UsageProblem(click.ClickException):
    """A user mistake (unknown kata, missing file): one line, exit code 2."""

    exit_code = 2


def find_kata(key):
    try:
        return catalog.find(key)
    except catalog.UnknownKata as error:
        raise UsageProblem(str(error)) from None


def kata_prompts(kata):
    from checker import prompts

    try:
        return prompts.for_kata(kata)
    except prompts.PromptsError as error:
        raise click.ClickException(str(error)) from None


def load_progress(workspace):
    from checker import progress

    record = progress.load(workspace)
    if record.warning:
        click.echo(f"warning: {record.warning}", err=True)
    return record


def echo(text):
    from checker import render

    click.echo(text, color=render.color_wanted())


def readable(path):
    path = Path(path)
    if not path.is_file():
        raise UsageProblem(f"no such file: {path}")
    if not os.access(path, os.R_OK):
        raise UsageProblem(f"cannot read {path}")
    return path


def record_checks(workspace, results):
    record = load_progress(workspace)
    for result in results:
        record.record_check(result.kata, result.status.value, result.bugs)
    save(record)


def save(record):
    try:
        record.save()
    except OSError as error:
        click.echo(f"warning: progress not saved: {error}", err=True)

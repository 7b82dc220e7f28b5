"""What every command shares: user mistakes, finding a kata, its prompts, the learner's progress."""

import os
from pathlib import Path

import click

from checker import catalog


class Problem(click.ClickException):
    """What stops a command (exit code 1), told in one line whose text may hold paths and names a candidate
    chose: shown safe for the terminal."""

    def format_message(self):
        from checker import escape

        return escape.terminal(self.message)


class UsageProblem(Problem):
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


def learner_seed(workspace, kata):
    """The seed of the learner's stub (`kata reset 10 --seed S` draws other bugs), else the default seed."""
    from checker.runner import DEFAULT_SEED

    seed = load_progress(workspace).of(kata.id).seed
    return DEFAULT_SEED if seed is None else seed


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


def file_digest(kata, workspace):
    """A short digest of the learner's file of `kata` as it is now (None: no file)."""
    import hashlib

    try:
        return hashlib.sha256(catalog.learner_file(kata, workspace).read_bytes()).hexdigest()[:16]
    except OSError:
        return None


def next_kata(workspace, record=None):
    """The first kata that does not pass now in this workspace (None: every one does)."""
    record = record or load_progress(workspace)
    katas = catalog.all_katas()
    return record.first_unpassed(katas, {kata.id: file_digest(kata, workspace) for kata in katas})


def record_checks(workspace, results):
    """Keep the checks of the learner's own files in the progress record (see Progress.record_check)."""
    record = load_progress(workspace)
    for result in results:
        digest = file_digest(catalog.find(result.kata), workspace)
        record.record_check(result.kata, result.status.value, result.bugs, digest=digest)
    save(record)
    return record


def save(record):
    try:
        record.save()
    except OSError as error:
        click.echo(f"warning: progress not saved: {error}", err=True)


def terminal_attached():
    """True when a person can answer a prompt: standard input is a terminal (tests patch this)."""
    import sys

    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False

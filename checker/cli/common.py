"""What every command shares: user mistakes, finding a kata, its prompts, the learner's progress."""

import os
from pathlib import Path

import click

from checker.engine import catalog


class Problem(click.ClickException):
    """What stops a command (exit code 1), told in one line whose text may hold paths and names a candidate
    chose: shown safe for the terminal."""

    def format_message(self):
        from checker.present import escape, layout

        message, width = escape.terminal(self.message), layout.current()
        if width is None:  # piped: one line
            return message
        return "\n".join(layout.wrap("Error: " + message, width, hang="  ")).removeprefix("Error: ")


class UsageProblem(Problem):
    """A user mistake (unknown kata, missing file): one line (on a terminal, wrapped at words), exit code 2."""

    exit_code = 2


def find_kata(key):
    """A kata by id (`05`), slug (`kv-cache`) or its file's path (`katas/05_kv_cache.py`); a typo is
    answered with the nearest kata."""
    katas = catalog.all_katas()
    if not katas:
        raise Problem(f"this kata install holds no katas (no references in {catalog.DATA / 'solutions'}): "
                      "reinstall it")
    if str(key).endswith(".py") or "/" in str(key):
        named = [kata for kata in katas if kata.filename == Path(key).name]
        if named:
            return named[0]
    try:
        return catalog.find(key)
    except catalog.UnknownKata:
        pass
    import difflib

    names = {name: kata for kata in katas for name in (kata.slug, kata.slug.replace("-", "_"), Path(kata.filename).stem,
                                                        kata.name) if name}
    typed = Path(str(key)).stem.lower()
    near = difflib.get_close_matches(typed, names, n=1, cutoff=0.6)
    hint = f": did you mean {names[near[0]]} (`{names[near[0]].id}`)?" if near else ""
    raise UsageProblem(f"unknown kata {str(key)!r}{hint} The katas: {', '.join(str(kata) for kata in katas)}")


_WORKSPACE_SAID = []


def workspace():
    """The learner's workspace (see catalog.find_workspace). Outside any, with kata installed from a checkout,
    says once on stderr that the checkout is used; with kata installed as a package, one line: none here, and
    `kata init` makes one."""
    try:
        here = catalog.find_workspace()
    except catalog.NoWorkspace as error:
        raise Problem(str(error)) from None
    if here == catalog.ROOT and not Path.cwd().resolve().is_relative_to(here) and not _WORKSPACE_SAID:
        _WORKSPACE_SAID.append(here)
        click.echo(f"note: no katas/ folder here or above {Path.cwd()}: using the workspace kata is installed in, "
                   f"{here} (`kata init` makes one here)", err=True)
    return here


def kata_prompts(kata, frontend="numpy"):
    """The kata's prompts, spelled for a file of `frontend` (a Result's `frontend`, or file_frontend's)."""
    from checker.engine import prompts

    try:
        return prompts.for_kata(kata, frontend)
    except prompts.PromptsError as error:
        raise click.ClickException(str(error)) from None


def load_progress(workspace):
    from checker.practice import progress

    record = progress.load(workspace)
    if record.warning:
        click.echo(f"warning: {record.warning}", err=True)
    return record


def learner_seed(workspace, kata):
    """The seed of the learner's stub (`kata reset 10 --seed S` draws other bugs), else the default seed."""
    from checker.engine.runner import DEFAULT_SEED

    seed = load_progress(workspace).of(kata.id).seed
    return DEFAULT_SEED if seed is None else seed


def review_until(record):
    """The interview date `kata review --until` set, while it is today or later; else None."""
    from datetime import date

    try:
        until = date.fromisoformat(record.interview) if record.interview else None
    except ValueError:
        return None
    return until if until and until >= date.today() else None


def review_plan(record):
    """`kata review`'s plan from the learner's whole history: checks, reviews and the quiz questions missed."""
    from checker.practice import review

    katas = catalog.all_katas()
    kata_of = {question.id: kata.id for kata in katas for question in kata_prompts(kata).questions}
    return review.plan(katas, record, until=review_until(record), missed=review.missed_by_kata(record, kata_of))


def echo(text):
    from checker.present import render

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


def file_frontend(path):
    """"torch" for a kata file that imports torch, else "numpy" (no file: "numpy")."""
    from checker.sandbox.torch_bridge import imports_torch

    try:
        return "torch" if imports_torch(Path(path).read_bytes()) else "numpy"
    except OSError:
        return "numpy"


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

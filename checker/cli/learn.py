"""Commands for working through a kata: list, check, hint, solution, reset."""

import json
import sys
from pathlib import Path

import click

from checker import catalog
from checker.cli import cli
from checker.cli.common import UsageProblem, echo, find_kata, kata_prompts, load_progress, readable, record_checks, \
    save


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
    from checker import render

    record = load_progress(catalog.find_workspace())
    rows = [(kata, kata_prompts(kata).title, record.of(kata.id)) for kata in catalog.all_katas()]
    if as_json:
        click.echo(json.dumps([{"id": k.id, "slug": k.slug, "title": t, "status": e.status, "attempts": e.attempts,
                                "hints_used": e.hints_used, "seconds_to_pass": e.seconds_to_pass,
                                "bugs_seen": e.bugs_seen} for k, t, e in rows]))
    else:
        echo(render.list_text(rows))


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
    from checker import render

    if check_all == bool(kata_key):
        raise UsageProblem("give one kata ID (e.g. `kata check 01`) or --all")
    if check_all and file:
        raise UsageProblem("--file checks one kata: give its ID instead of --all")
    katas = catalog.all_katas() if check_all else [find_kata(kata_key)]
    workspace = catalog.find_workspace()
    paths = [readable(file) if file else catalog.learner_file(kata, workspace) for kata in katas]
    for path in paths:
        readable(path)

    from checker.runner import check as run_check
    from checker.sandbox import Limits

    results = [run_check(kata, path, Limits(seconds=timeout)) for kata, path in zip(katas, paths)]
    if not file:
        record_checks(workspace, results)
    if as_json:
        objects = [r.to_json() for r in results]
        click.echo(json.dumps({"katas": objects} if check_all else objects[0]))
    else:
        # a pass needs no brief and no fixes: prompts.yaml is read only for the rest
        echo("\n\n".join(render.check_text(r, None if r.status == "passed" else kata_prompts(k))
                            for r, k in zip(results, katas)))
    sys.exit(0 if all(r.status == "passed" for r in results) else 1)


@cli.command()
@click.argument("kata_key", metavar="ID")
def hint(kata_key):
    """Reveal the next hint for a kata, one level at a time.

    Example:

    \b
        kata hint 02
    """
    kata = find_kata(kata_key)
    hints = kata_prompts(kata).hints
    workspace = catalog.find_workspace()
    record = load_progress(workspace)
    entry = record.of(kata.id)
    entry.hints_used = min(entry.hints_used + 1, len(hints))
    for level, text in enumerate(hints[:entry.hints_used], start=1):
        echo(click.style(f"Hint {level} of {len(hints)}", bold=True) + f"\n{text}\n")
    if entry.hints_used == len(hints):
        echo(f"That was the last hint. The reference is one `kata solution {kata.id}` away.")
    else:
        echo(f"Run `kata hint {kata.id}` again for the next one.")
    save(record)


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
    kata = find_kata(kata_key)
    record = load_progress(catalog.find_workspace())
    if not yes and not record.of(kata.id).ever_passed:
        click.confirm(f"Kata {kata} has not passed yet. Show the reference solution anyway?", abort=True)
    click.echo(kata.solution_path.read_text(encoding="utf-8"))


@cli.command()
@click.argument("kata_key", metavar="ID")
@click.option("--restore", "restore", metavar="[BACKUP]", is_flag=False, flag_value="newest", default=None,
              help="Bring a backup back instead (default: the newest; `kata backups` lists them).")
def reset(kata_key, restore):
    """Restore a kata's stub as the project ships it, keeping a backup of your file in .kata/backups/.

    Your commits do not matter: the stub comes with the package, not from git. --restore brings
    a backup back (your current file is backed up first), so nothing is ever lost.

    Example:

    \b
        kata reset 03
        kata reset 03 --restore
        kata reset 03 --restore .kata/backups/03_causal_mask.20250615-170640.py
    """
    kata = find_kata(kata_key)
    from checker import workspace
    from checker.runner import display_path

    here = catalog.find_workspace()
    try:
        if restore is not None:
            restored, replaced = workspace.restore(kata, here, None if restore == "newest" else restore)
            echo(f"Restored {display_path(restored)} as your file of {kata}."
                 + (f" The file it replaced is saved as {display_path(replaced)}" if replaced else ""))
            return
        backup = workspace.reset(kata, here)
    except workspace.ResetError as error:
        raise UsageProblem(str(error)) from None
    except OSError as error:
        raise click.ClickException(f"could not reset {kata}: {error}") from None
    if backup:
        echo(f"Restored the stub of {kata}; your file is saved as {display_path(backup)} "
             f"(`kata reset {kata.id} --restore` brings it back).")
    else:
        echo(f"{kata} is already the stub: nothing to back up.")


@cli.command("backups")
@click.argument("kata_key", metavar="[ID]", required=False)
def list_backups(kata_key):
    """List the backups `kata reset` kept, newest first, with the command that brings each back.

    Example:

    \b
        kata backups
        kata backups 03
    """
    from datetime import datetime

    from checker import workspace
    from checker.runner import display_path

    kata = find_kata(kata_key) if kata_key else None
    kept = workspace.backups(catalog.find_workspace(), kata)
    if not kept:
        echo("No backups yet: `kata reset ID` keeps one each time it restores a stub.")
        return
    by_stem = {Path(k.filename).stem: k for k in catalog.all_katas()}
    for backup in kept:
        owner = by_stem.get(backup.path.name.split(".")[0])
        again = f"kata reset {owner.id} --restore {display_path(backup.path)}" if owner else ""
        echo(f"{datetime.fromtimestamp(backup.saved):%Y-%m-%d %H:%M:%S}  {backup.size:>6} bytes  "
             f"{display_path(backup.path)}  {again}".rstrip())

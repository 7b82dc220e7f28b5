"""Commands for working through a kata: list, check, hint, solution, reset."""

import json
import sys
from pathlib import Path

import click

from checker.engine import catalog
from checker.present import layout
from checker.cli import cli, common
from checker.cli.common import UsageProblem, echo, find_kata, kata_prompts, learner_seed, load_progress, next_kata, readable, \
    record_checks, save
from checker.engine.results import Status
from checker.sandbox import DEFAULT_SECONDS


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
    from checker.present import render_progress

    record = load_progress(common.workspace())
    rows = [(kata, kata_prompts(kata).title, record.of(kata.id)) for kata in catalog.all_katas()]
    if as_json:
        cells = {k: {"status": c.status, "at": c.at, "bugs": c.bugs, "checks": c.checks} for k, c in record.cells.items()}
        click.echo(json.dumps([{"id": k.id, "slug": k.slug, "title": t, "status": e.status, "attempts": e.attempts,
                                "hints_used": e.hints_used, "seconds_to_pass": e.seconds_to_pass,
                                "bugs_seen": e.bugs_seen, **({"cell": cells[k.id]} if k.id in cells else {})}
                               for k, t, e in rows]))
    else:
        plan = common.review_plan(record)
        differing = {kata.id: record.cell_differs(kata.id) for kata, _, _ in rows if record.cell_differs(kata.id)}
        echo(render_progress.list_text(rows, render_progress.plan_lines(plan, short=True) + _defence_lines(record),
                                       differing))


def _defence_hint(kata, file=None):
    from checker.present.defend_lines import hint_line

    return hint_line(kata.id, file)


def _defence_lines(record):
    """`kata defend`'s latest score of each kata, one line under the table (none before a first defence)."""
    from checker.present.defend_lines import defence_line

    line = defence_line(record)
    return layout.fit([line]) if line else []


@cli.command()
@click.argument("kata_key", metavar="ID", required=False)
@click.option("--file", "file", type=click.Path(path_type=Path),
              help="Check this .py file instead of katas/NN_slug.py.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object and nothing else (its fields: README, `kata check --json`).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=DEFAULT_SECONDS, show_default=True,
              help="Seconds the learner's code may take in all.")
@click.option("--all", "check_all", is_flag=True, help="Check every kata, then one summary line a kata.")
@click.option("--verbose", "-v", is_flag=True, help="Show every check: each failure in full, and those that pass.")
@click.option("--repro", is_flag=True, help="Write the first failure as a runnable Python snippet (.kata/repro/) and "
              "print it: the failing call and its inputs, replayed on your file.")
def check(kata_key, file, as_json, timeout, check_all, verbose, repro):
    """Check a kata (ID like 01 or 1, or a slug like softmax) and name the bugs found.

    Failures that name a bug (and draw a picture) come first; --verbose shows every check.
    A check of your own file counts as an attempt in `kata list` when the file changed since
    its last check and is no longer the stub. Exit code: 0 passed, 1 anything else, 2 a usage
    mistake.

    Example:

    \b
        kata check 01
        kata check 03 --verbose
        kata check softmax --file my-try.v2.py --json
        kata check 05 --repro
        kata check --all
    """
    from checker.present import render

    if check_all == bool(kata_key):
        raise UsageProblem("give one kata ID (e.g. `kata check 01`) or --all")
    if check_all and file:
        raise UsageProblem("--file checks one kata: give its ID instead of --all")
    if check_all and repro:
        raise UsageProblem("--repro writes the failure of one kata: give its ID instead of --all")
    katas = catalog.all_katas() if check_all else [find_kata(kata_key)]
    workspace = common.workspace()
    paths = [readable(file) if file else catalog.learner_file(kata, workspace) for kata in katas]
    for path in paths:
        readable(path)

    from checker.engine.runner import check as run_check
    from checker.sandbox import Limits

    if check_all:
        from checker.sandbox import warm

        warm.enable()  # ten checks: each forks from one warm process (one check starts its child plainly)
    results = [run_check(kata, path, Limits(seconds=timeout), learner_seed(workspace, kata))
               for kata, path in zip(katas, paths)]
    record = None if file else record_checks(workspace, results)
    if as_json:
        objects = [r.to_json() for r in results]
        click.echo(json.dumps({"katas": objects} if check_all else objects[0]))
        sys.exit(0 if all(r.status == Status.PASSED for r in results) else 1)
    after = next_step_text(workspace, record) if record and not check_all else None
    # a pass needs no brief and no fixes: prompts.yaml is read only for the rest
    texts = [render.check_text(r, None if r.status == Status.PASSED else kata_prompts(k, r.frontend), verbose=verbose,
                               next_step=after, repro=repro)
             for r, k in zip(results, katas)]
    if not check_all and results[0].status == Status.PASSED and (katas[0].folder / "defend.yaml").is_file():
        texts[0] += "\n" + _defence_hint(katas[0], file)  # the interview goes on after a pass
    if check_all:
        texts.append(render.summary_lines(results))
    if repro:
        texts.append(_repro_text(katas[0], results[0], paths[0], workspace))
    echo("\n\n".join(texts))
    sys.exit(0 if all(r.status == Status.PASSED for r in results) else 1)


def _repro_text(kata, result, path, workspace):
    """`--repro`: the first failure as a snippet, written to .kata/repro/NN_slug.py (and .npz), and shown."""
    from checker.present import escape
    from checker.practice import repro
    from checker.engine.runner import display_path

    failed = next((test for test in result.ranked_failures if test.calls), None)
    if result.status == Status.NOT_STARTED:
        return "No repro: the stub still raises NotImplementedError."
    if failed is None:
        return "No repro: " + ("every check passed." if result.status == Status.PASSED else
                               "no failing check called your code (it did not load, or still raises the stub's error).")
    target = Path(workspace) / ".kata" / "repro" / Path(kata.filename).name
    snippet = repro.build(failed, path, kata.id, target.with_suffix(".npz"), result.frontend)
    try:
        written = repro.write(snippet, target)
    except OSError as error:
        raise click.ClickException(f"could not write the repro: {error}") from None
    head = (click.style(f"Repro of {failed.name}", bold=True) + f", written to {display_path(written[0])}"
            + (f" (its inputs: {display_path(written[1])})" if len(written) > 1 else "")
            + f": run it with `python {display_path(written[0])}`, or paste it into a REPL.")
    return "\n".join(layout.fit([head, ""]) + escape.lines(snippet.code.rstrip()))


def next_step_text(workspace, record=None):
    """After a pass: the next kata to do, as one line."""
    following = next_kata(workspace, record)
    if following is None:
        return "Every kata passes. Next: `kata quiz`, `kata mock` for a timed interview, or `kata review`."
    return f"Next: kata {following}, katas/{following.filename}: `kata check {following.id}` (or `kata next`)."


@cli.command("next")
def next_command():
    """Show the next kata to do (the first that does not pass now), its task and how to check it.

    Example:

    \b
        kata next
    """
    workspace = common.workspace()
    kata = next_kata(workspace)
    if kata is None:
        echo("Every kata passes here. Next: `kata quiz`, `kata mock` for a timed interview, or `kata review`.")
        return
    texts = kata_prompts(kata, common.file_frontend(catalog.learner_file(kata, workspace)))  # torch: in its words
    echo("\n".join(layout.fit([click.style(f"Next: {kata}  {texts.title}", bold=True), ""]
                              + [layout.Kept(line) for line in layout.reflow(texts.task.splitlines(),
                                                                             layout.current(), "  ")]
                              + ["", f"Edit katas/{kata.filename}, then `kata check {kata.id}` (or `kata watch`)."])))


@cli.command()
@click.argument("kata_key", metavar="[ID]", required=False)
def hint(kata_key):
    """Reveal the next hint for a kata, one level at a time; without ID, for the kata you are on (the one
    `kata next` names).

    Example:

    \b
        kata hint
        kata hint 02
    """
    workspace = common.workspace()
    kata = find_kata(kata_key) if kata_key else next_kata(workspace)
    if kata is None:
        echo("Every kata passes here: no hint needed. `kata hint ID` still shows a kata's hints.")
        return
    hints = list(kata_prompts(kata, common.file_frontend(catalog.learner_file(kata, workspace))).hints)
    record = load_progress(workspace)
    entry = record.of(kata.id)
    written = len(hints)
    if entry.hints_used >= written:
        deeper, unexplained = _hints_from_a_check(kata, workspace)
        hints += deeper
        if len(hints) == written and kata.part("hints") is not None:
            echo("\n".join(layout.fit([_no_deeper_hint(kata, unexplained)])))
            return
    entry.hints_used = min(entry.hints_used + 1, len(hints))
    for level, text in enumerate(hints[:entry.hints_used], start=1):
        echo("\n".join(layout.fit([click.style(f"Hint {level} of {len(hints)}", bold=True), *text.splitlines()])) + "\n")
    if entry.hints_used == len(hints) == written and kata.part("hints") is not None:
        echo(f"Run `kata hint {kata.id}` again: the next hints look at what your file computes.")
    elif entry.hints_used == len(hints):
        echo(f"That was the last hint. The reference is one `kata solution {kata.id}` away.")
    else:
        echo(f"Run `kata hint {kata.id}` again for the next one.")
    save(record)


def _hints_from_a_check(kata, workspace):
    """Hints that depend on the learner's file (kata 10: where a planted bug remains, then which), from a check."""
    deeper = getattr(kata.part("hints"), "deeper", None)
    path = catalog.learner_file(kata, workspace)
    if deeper is None or not path.is_file():
        return [], False
    from checker.engine import prompts
    from checker.engine.runner import check as run_check

    result = run_check(kata, path, seed=learner_seed(workspace, kata))
    if "remaining" in result.details and result.details["remaining"] is None:
        said = getattr(kata.part("hints"), "unexplained", None)
        unexplained = said(result.details) if said else ("computes what no mix of the planted bugs computes: an "
                                                         "edit changed a line into something that is neither the "
                                                         "planted bug nor its fix (or fixed it halfway)")
    else:
        unexplained = None
    return deeper(result.details, prompts.fix_of), unexplained


def _no_deeper_hint(kata, unexplained):
    """Why the file gives no hint: no planted bug is left, or an edit computes what no mix of them does
    (`unexplained`: that, said with the site where it departs)."""
    if unexplained:
        return (f"No hint from your file: it {unexplained}. `kata check {kata.id}` says where the numbers "
                f"differ; `kata reset {kata.id}` brings the planted stub back and keeps your file.")
    return (f"No hint from your file: it holds no planted bug the checker can point at "
            f"(`kata check {kata.id}` says what still fails).")


@cli.command()
@click.argument("kata_key", metavar="ID")
@click.option("--yes", "-y", is_flag=True, help="Do not ask, even if the kata has not passed yet.")
def solution(kata_key, yes):
    """Print the reference solution of a kata.

    Asks first, on the terminal, if the kata has not passed in this workspace yet; without a
    terminal to ask on it refuses (add --yes). Piping works: `kata solution 01 | less`.

    Example:

    \b
        kata solution 01
        kata solution 01 --yes | head -20
    """
    kata = find_kata(kata_key)
    record = load_progress(common.workspace())
    if not yes and not record.of(kata.id).ever_passed:
        if not common.terminal_attached():
            raise click.ClickException(f"kata {kata} has not passed yet and there is no terminal to ask on: "
                                       f"`kata solution {kata.id} --yes` shows it anyway")
        try:
            shown = click.confirm(f"Kata {kata} has not passed yet. Show the reference solution anyway?",
                                  err=True)
        except click.Abort:
            shown = False
        if not shown:
            click.echo(f"Not shown. `kata hint {kata.id}` gives the next hint instead.", err=True)
            return
    click.echo(solution_text(kata.solution_path.read_text(encoding="utf-8")))


def solution_text(source):
    """The solution as the terminal shows it: as written when piped (to copy it) or when it fits; else each
    line too wide broken at a space, never inside a word, a comment going on as a comment and code or a
    docstring indented one step further."""
    width = layout.current()
    if width is None:
        return source
    lines, in_docstring = [], False
    for line in source.splitlines():
        indent = line[:len(line) - len(line.lstrip(" "))]
        code, gap, comment = line.partition("  # ")
        if (gap and not in_docstring and layout.display_width(line) > width and code.strip()
                and "'" not in code and '"' not in code):
            lines += layout.wrap(f"{indent}# {comment}", width, indent + "# ")  # a trailing comment goes above
            line = code.rstrip()
        hang = indent + ("" if in_docstring else "# " if line.lstrip().startswith("#") else "    ")
        lines += layout.wrap(line, width, hang)
        in_docstring ^= line.count('"""') % 2 == 1
    return "\n".join(lines) + "\n"


@cli.command()
@click.argument("kata_key", metavar="ID")
@click.option("--restore", "restore", metavar="[BACKUP]", is_flag=False, flag_value="newest", default=None,
              help="Bring a backup back instead (default: the newest; `kata backups` lists them).")
@click.option("--seed", type=int, help="Kata 10: plant another draw of four bugs (the checker then counts those).")
@click.option("--torch", "torch", is_flag=True, help="The stub in PyTorch's words (kata 10 stays NumPy).")
def reset(kata_key, restore, seed, torch):
    """Restore a kata's stub as the project ships it, keeping a backup of your file in .kata/backups/.

    Your commits do not matter: the stub comes with the package, not from git. --restore brings
    a backup back (your current file is backed up first), so nothing is ever lost.

    Example:

    \b
        kata reset 03
        kata reset 03 --restore
        kata reset 03 --restore .kata/backups/03_causal_mask.20250615-170640.py
        kata reset 10 --seed 7
        kata reset 03 --torch
    """
    kata = find_kata(kata_key)
    from checker.engine import workspace
    from checker.engine.runner import display_path

    here = common.workspace()
    try:
        if restore is not None:
            restored, replaced = workspace.restore(kata, here, None if restore == "newest" else restore)
            echo(f"Restored {display_path(restored)} as your file of {kata}."
                 + (f" The file it replaced is saved as {display_path(replaced)}" if replaced else ""))
            return
        stub = None if seed is None else workspace.seeded_stub(kata, seed)
        if seed is not None and stub is None:
            raise UsageProblem(f"kata {kata} has one stub: --seed draws the planted bugs of kata 10 only")
        if torch:
            from checker.engine.torch_stubs import torch_stub

            stub = torch_stub(kata)
            if stub is None:
                raise UsageProblem(f"kata {kata} hands out a NumPy decoder to fix: it has no PyTorch stub")
        backup = workspace.reset(kata, here, stub)
        _remember_seed(kata, here, seed)
    except workspace.ResetError as error:
        raise UsageProblem(str(error)) from None
    except OSError as error:
        raise click.ClickException(f"could not reset {kata}: {error}") from None
    if backup:
        echo(f"Restored the stub of {kata}; your file is saved as {display_path(backup)} "
             f"(`kata reset {kata.id} --restore` brings it back).")
    else:
        echo(f"{kata} is already the stub: nothing to back up.")


def _remember_seed(kata, here, seed):
    """The seed the learner's stub was drawn with, so checks count the bugs planted in it (None: default)."""
    record = load_progress(here)
    if record.of(kata.id).seed != seed:
        record.of(kata.id).seed = seed
        save(record)


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

    from checker.engine import workspace
    from checker.engine.runner import display_path

    kata = find_kata(kata_key) if kata_key else None
    kept = workspace.backups(common.workspace(), kata)
    if not kept:
        echo("No backups yet: `kata reset ID` keeps one each time it restores a stub.")
        return
    by_stem = {Path(k.filename).stem: k for k in catalog.all_katas()}
    for backup in kept:
        owner = by_stem.get(backup.path.name.split(".")[0])
        again = f"kata reset {owner.id} --restore {display_path(backup.path)}" if owner else ""
        echo(f"{datetime.fromtimestamp(backup.saved):%Y-%m-%d %H:%M:%S}  {backup.size:>6} bytes  "
             f"{display_path(backup.path)}  {again}".rstrip())

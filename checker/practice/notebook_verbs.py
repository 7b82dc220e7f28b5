"""The learner's verbs as line magics: `%kata list`, `next`, `hint [NN]`, `solution NN [--yes]`, `repro NN` and
`check NN`. Each does what its `kata` command does in the same workspace and progress record, and returns what
the notebook shows (notebook_html.Text or Verdict); a usage mistake is a ValueError saying the usage."""

import hashlib

from checker.engine import catalog
from checker.practice import progress
from checker.practice.notebook_html import Text, Verdict, bounded


def _one_kata(words, verb, optional=False):
    from checker.practice.notebook import _kata

    if not words and optional:
        return None
    if len(words) != 1:
        raise ValueError(f"usage: %kata {verb} NN, e.g. %kata {verb} 02")
    return _kata(words[0])


def _digests(workspace):
    def digest(kata):
        try:
            return hashlib.sha256(catalog.learner_file(kata, workspace).read_bytes()).hexdigest()[:16]
        except OSError:
            return None

    return {kata.id: digest(kata) for kata in catalog.all_katas()}


def listing(workspace, words):
    """`%kata list`: kata list's table, with the notebook cells whose outcome differs from the file's."""
    from datetime import date

    from checker.engine import prompts
    from checker.practice import review
    from checker.present import render_progress

    if words:
        raise ValueError("usage: %kata list")
    record = progress.load(workspace)
    katas = catalog.all_katas()
    rows = [(kata, prompts.for_kata(kata).title, record.of(kata.id)) for kata in katas]
    try:
        until = date.fromisoformat(record.interview) if record.interview else None
    except ValueError:
        until = None
    plan = review.plan(katas, record, until=until if until and until >= date.today() else None)
    differing = {kata.id: record.cell_differs(kata.id) for kata in katas if record.cell_differs(kata.id)}
    import click

    table = render_progress.list_text(rows, render_progress.plan_lines(plan, short=True), differing)
    return Text(click.unstyle(table))  # the terminal's colour codes read `<U+001B>[32mpassed` in a notebook


def next_kata(workspace, words):
    """`%kata next`: the first kata whose file does not pass now, and its task."""
    from checker.engine import prompts

    if words:
        raise ValueError("usage: %kata next")
    kata = progress.load(workspace).first_unpassed(catalog.all_katas(), _digests(workspace))
    if kata is None:
        return Text("Every kata passes here. Next: `kata quiz`, `kata mock` or `kata review` in a terminal.")
    source = _latest_code(kata, workspace)
    told = prompts.for_kata(kata, "torch" if source and _imports_torch(source) else "numpy")
    return Text(f"Next: {kata}  {told.title}\n\n{told.task}\n\nWrite it in a cell that starts with %%kata {kata.id}.")


def hint(workspace, words):
    """`%kata hint [NN]`: the next hint, one level more each time, counted as `kata hint` counts it."""
    from checker.engine import prompts

    record = progress.load(workspace)
    kata = _one_kata(words, "hint", optional=True) or record.first_unpassed(catalog.all_katas(), _digests(workspace))
    if kata is None:
        return Text("Every kata passes here: no hint needed. `%kata hint NN` still shows a kata's hints.")
    source = _latest_code(kata, workspace)
    frontend = "torch" if source and _imports_torch(source) else "numpy"
    hints = list(prompts.for_kata(kata, frontend).hints)
    entry = record.of(kata.id)
    if entry.hints_used >= len(hints):
        hints += _deeper(kata, workspace, record, source)
    entry.hints_used = min(entry.hints_used + 1, len(hints))
    shown = [f"Hint {level} of {len(hints)}\n{text}" for level, text in enumerate(hints[:entry.hints_used], start=1)]
    last = (f"That was the last hint. The reference is one `%kata solution {kata.id}` away."
            if entry.hints_used == len(hints) else f"Run `%kata hint {kata.id}` again for the next one.")
    try:
        record.save()
    except OSError:
        pass
    return Text("\n\n".join(shown + [last]))


def _latest_code(kata, workspace):
    """The bytes of the latest cell checked as `kata`, else of its file (None: neither)."""
    from checker.practice.notebook import cell_copy

    for path in (cell_copy(kata, workspace), catalog.learner_file(kata, workspace)):
        try:
            return path.read_bytes()
        except OSError:
            continue
    return None


def _imports_torch(source):
    from checker.sandbox.torch_bridge import imports_torch

    return imports_torch(source)


def _deeper(kata, workspace, record, source):
    """Kata 10's hints past the written ones, from a check of the latest cell (else the file)."""
    deeper = getattr(kata.part("hints"), "deeper", None)
    if deeper is None or source is None:
        return []
    from checker.engine import prompts
    from checker.engine.runner import DEFAULT_SEED, check

    seed = record.katas[kata.id].seed if kata.id in record.katas else None
    result = check(kata, f"cell-{kata.filename}", seed=DEFAULT_SEED if seed is None else seed, source=source)
    return deeper(result.details, prompts.fix_of)


def solution(workspace, words):
    """`%kata solution NN [--yes]`: the reference; before a pass (of the file or a cell) only with --yes."""
    yes = "--yes" in words or "-y" in words
    kata = _one_kata([word for word in words if word not in ("--yes", "-y")], "solution")
    record = progress.load(workspace)
    cell = record.cells.get(kata.id)
    if not yes and not record.of(kata.id).ever_passed and not (cell and cell.status == "passed"):
        return Text(f"Kata {kata} has not passed yet: `%kata solution {kata.id} --yes` shows the reference "
                    f"anyway, `%kata hint {kata.id}` gives the next hint instead.")
    return Text(kata.solution_path.read_text(encoding="utf-8"))


def repro(workspace, words):
    """`%kata repro NN`: the snippet of the latest failing cell of NN, written when it was checked."""
    from checker.practice.notebook import repro_path

    kata = _one_kata(words, "repro")
    path = repro_path(kata, workspace)
    try:
        code = path.read_text(encoding="utf-8")
    except OSError:
        cell = progress.load(workspace).cells.get(kata.id)
        why = ("no cell has been checked as it yet" if cell is None else
               f"its latest cell {'passed' if cell.status == 'passed' else 'failed before any call'}")
        return Text(f"No repro of kata {kata}: {why}. A failing %%kata {kata.id} cell writes one.")
    return Text(f"# {path}: `%run {path}` runs it on the cell's code (kept in {path.parent.parent})\n{code}")


def check(workspace, words):
    """`%kata check NN [--verbose]`: check katas/NN_slug.py itself, recorded as `kata check` records it."""
    from checker.engine import prompts
    from checker.engine.runner import DEFAULT_SEED, check as run_check

    verbose = "--verbose" in words
    kata = _one_kata([word for word in words if word != "--verbose"], "check")
    path = catalog.learner_file(kata, workspace)
    if not path.is_file():
        raise ValueError(f"no such file: {path}")
    record = progress.load(workspace)
    seed = record.katas[kata.id].seed if kata.id in record.katas else None
    result = run_check(kata, path, seed=DEFAULT_SEED if seed is None else seed)
    record.record_check(result.kata, result.status.value, result.bugs, digest=_digests(workspace)[kata.id])
    try:
        record.save()
    except OSError:
        pass
    from checker.present.render import Commands

    told = None if result.status.value == "passed" else prompts.for_kata(kata, result.frontend)
    again = Commands("%kata check {id}", "%kata check {id} --verbose", "kata check {id} --repro", "%kata hint {id}")
    return Verdict(bounded(result), told, verbose=verbose, commands=again)

"""`kata pack`: a candidate's workspace, with the stubs, a README and the public checks only.

A pack holds `katas/` (the stubs as git committed them), `README.md` (rules, time, commands),
`check.py` (checker/pack_check.py with this pack's shapes filled in) and the manifest
`kata-pack.json` (its katas, seed and the pack id the roster knows it by: roster.py). It never holds a
reference, a hidden test, a bug id or a quiz question. The same katas and seed give the same bytes but
for the manifest's pack id and seal, so a pack can always be made again.
"""

import ast
import doctest
import functools
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from checker import __version__
from checker.engine import prompts
from checker.engine.catalog import MANIFEST, Kata
from checker.hiring import pack_words
from checker.hiring import roster as rostering
from checker.engine.workspace import pristine_stub

MANIFEST_FORMAT = 1
MINUTES_PER_KATA = 20
_TEMPLATE = Path(__file__).with_name("pack_check.py")


class PackError(Exception):
    """The pack cannot be written there (the message is one line for the user)."""


@dataclass
class Pack:
    folder: Path
    katas: list[Kata]
    seed: int
    minutes: int
    files: list[str]  # relative paths, in the order written
    warnings: list[str] = field(default_factory=list)
    roster: Path | None = None  # where `make` recorded what it issued
    weights: dict = field(default_factory=dict)  # kata id -> its weight in the total score (the team's rubric)
    pack_id: str = ""  # the id the roster knows it by, in its manifest with the seal


LANGUAGES = {"numpy": "NumPy", "torch": "PyTorch"}


def make(folder, katas, seed, minutes=None, weights=None, allow=("numpy",)):
    """Write the pack of `katas` (id order) drawn with `seed` into the new or empty `folder`; `weights`
    ({kata id: weight}, default 1 each) is the team's rubric for the total score, kept in the roster only."""
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise PackError(f"{folder} already exists and is not an empty folder: pack into a new one")
    katas = sorted(set(katas), key=lambda kata: kata.id)
    minutes = minutes or MINUTES_PER_KATA * len(katas)
    allow = sorted(set(allow) | {"numpy"}, key=list(LANGUAGES).index)
    files, warnings = contents(katas, seed, minutes, allow)
    weights = {kata.id: (weights or {}).get(kata.id, 1) for kata in katas}
    folder.mkdir(parents=True, exist_ok=True)
    pack_id, sealed, roster = rostering.issue(folder, katas, seed, files, minutes, weights, allow)
    files[MANIFEST] = manifest(katas, seed, minutes, pack_id, sealed, allow)
    for relative, text in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    return Pack(folder, katas, seed, minutes, list(files), warnings, roster, weights, pack_id)


def contents(katas, seed, minutes, allow=("numpy",)):
    """({relative path: text}, warnings): everything a pack holds but its manifest (which carries the pack's
    own id). Pure: same arguments, same bytes."""
    stubs, warnings = {}, []
    for kata in katas:
        warning = _stub(kata, seed)[1]
        stubs[kata.id] = issued_stub(kata, seed, tuple(katas))  # the learner's commands and other katas, reworded
        warnings += [warning] if warning else []
    warnings += given_away(katas, stubs)
    files = {"README.md": readme(katas, minutes, allow), "check.py": check_script(katas, stubs, seed),
             **{f"katas/{kata.filename}": stubs[kata.id] for kata in katas}}
    return files, warnings


def manifest(katas, seed, minutes, pack_id, sealed, allow=("numpy",)):
    """kata-pack.json: what the candidate was given, and the pack id and seal `kata grade` finds its record by."""
    return json.dumps({"format": MANIFEST_FORMAT, "kata_version": __version__, "seed": seed,
                       "katas": [kata.id for kata in katas], "minutes": minutes, "allow": list(allow), "pack": pack_id,
                       "seal": sealed},
                      indent=2) + "\n"


def planted(kata):
    """Whether the kata's stub is a working file with bugs planted in it by the pack's seed (kata 10)."""
    return hasattr(kata.part("public"), "stub")


def _stub(kata, seed):
    """The committed stub (never a learner's edits of katas/); the file itself outside a git checkout. A kata
    whose public.py has `stub(seed)` (kata 10: bugs planted by seed) makes each pack's stub its own way."""
    public = kata.part("public")
    if hasattr(public, "stub"):
        return public.stub(seed), None
    stub = pristine_stub(kata)
    if stub is not None:
        return stub, None
    return kata.stub_path.read_text(encoding="utf-8"), (f"{kata.stub_path} is not in a git checkout: "
                                                        "packed as it is, check it holds no solution")


@functools.lru_cache(maxsize=256)
def issued_stub(kata, seed, katas):
    """The stub of `kata` a pack of `katas` (a tuple) drawn with `seed` holds, as `contents` writes it."""
    return pack_words.for_pack(_stub(kata, seed)[0], katas)


def given_away(katas, stubs):
    """Warnings for a stub that hands out, working, a function that another kata of the pack asks for
    (kata 05's stub gives softmax, split_heads and merge_heads: the heart of kata 04)."""
    asked = {name: kata for kata in katas for name, working in _functions(stubs[kata.id]) if not working}
    warnings = []
    for kata in katas:
        given = [(name, asked[name]) for name, working in _functions(stubs[kata.id])
                 if working and name in asked and asked[name] != kata]
        if given:
            names = ", ".join(f"{name}() (kata {other.id} asks for it)" for name, other in given)
            others = " and ".join(sorted({other.id for _, other in given}))
            warnings.append(f"katas/{kata.filename} gives a working {names}: the candidate can copy them; "
                            f"pack {kata.id} apart from {others} to avoid it")
    return warnings


def _functions(stub):
    """(name, working) of the stub's top-level functions; working: it raises no NotImplementedError."""
    found = []
    for node in ast.parse(stub).body:
        if isinstance(node, ast.FunctionDef):
            raises = [n.exc for n in ast.walk(node) if isinstance(n, ast.Raise) and n.exc is not None]
            todo = any("NotImplementedError" in ast.unparse(exc) for exc in raises)
            found.append((node.name, not todo))
    return found


# --- the public checks -------------------------------------------------------------------------------

def check_script(katas, stubs, seed):
    """checker/pack_check.py with this pack's shapes, the stubs' examples and each kata's public `check`
    (from its folder's public.py) in place of its `= {}` lines."""
    template = _TEMPLATE.read_text(encoding="utf-8")
    shapes = {kata.id: _entry(kata, seed) for kata in katas}
    examples = {kata.id: worked_examples(stubs[kata.id]) for kata in katas}
    for name, data in (("KATAS", shapes), ("EXAMPLES", examples)):
        lines = "".join(f"    {json.dumps(key)}: {json.dumps(value)},\n" for key, value in data.items())
        template = _fill(template, name, f"\n{name} = {{\n{lines}}}\n")
    checks = "".join(_public_check(kata) + "\n\n\n" for kata in katas)
    table = "".join(f"    {json.dumps(kata.slug)}: {_check_name(kata)},\n" for kata in katas)
    template = template.replace("\nGRADER_SECONDS = 10 ", f"\nGRADER_SECONDS = {_grader_seconds():g} ", 1)
    return _fill(template, "SHAPE_CHECKS", f"\n{checks}SHAPE_CHECKS = {{\n{table}}}\n")


def _grader_seconds():
    from checker.sandbox import DEFAULT_SECONDS

    return DEFAULT_SECONDS


def _fill(template, name, text):
    filled = template.replace(f"\n{name} = {{}}\n", text, 1)
    assert filled != template, f"pack_check.py lost its `{name} = {{}}` line"
    return filled


def _check_name(kata):
    return f"check_{kata.slug.replace('-', '_')}"


def _public_check(kata):
    """The source of the kata's public `check` (its own, or one its public.py imports), renamed for check.py."""
    import inspect

    source = inspect.getsource(kata.part("public").check)
    return source.replace("def check(", f"def {_check_name(kata)}(", 1)


def worked_examples(stub):
    """[(name, [(source, expected output)])]: every >>> example of the stub's docstrings, in file order."""
    found = []
    for node in ast.walk(ast.parse(stub)):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            examples = doctest.DocTestParser().get_examples(ast.get_docstring(node))
            if examples:
                found.append((node.lineno, node.name, [(e.source, e.want) for e in examples]))
    return [[name, pairs] for _, name, pairs in sorted(found)]


def _entry(kata, seed):
    draw = random.Random(f"kata-pack:{seed}:{kata.id}")  # one stream per kata: --katas never shifts another
    entry = {"slug": kata.slug, "file": kata.filename, "cases": kata.part("public").cases(draw)}
    if planted(kata):  # the stub runs: its shapes are right with every bug in
        entry["planted"] = 1  # (check.py is Python: written as JSON, True would be `true`)
    return entry


def distinct(draw, count, low=2, high=9):
    """`count` different whole numbers in [low, high]: dimensions no bug can confuse with each other."""
    return draw.sample(range(low, high + 1), count)


# --- the candidate's README ----------------------------------------------------------------------------

_README = """\
# Attention katas

You have **{minutes} minutes** for {count}. Write each one in {languages}, in its file under `katas/`.
Do them in any order.

| kata | file | title |
|------|------|-------|
{table}

## Rules

- Edit the files in `katas/` only, and keep every name and signature the stub gives. You may add
  helper functions; each file stands alone (do not import one kata from another).
- Python 3.10+ and {rule}: no {others}SciPy or other libraries.
- Each stub's docstring is the contract, with every shape and every edge case: the graders' tests
  check exactly what it says, on other shapes than the examples.
- Do not edit `kata-pack.json`: it tells the graders which variant of the tests you have.
- Printing is fine; leave no `input()` and no endless loop: each kata has a time limit when graded.

## Commands

```
python check.py        # every kata: does it run, are the shapes right, do the worked examples hold
python check.py {first}     # one kata
```

`check.py` is public and deliberately thin. "ok" means your code runs, returns the right shapes
and reproduces the docstrings' examples; it does not mean the graders' tests pass. Test your own
edge cases too: the docstrings list them. Each kata's check is stopped after {limit} s; the graders'
tests stop each kata after {grader:g} s in all, and check.py times each kata and says SLOW when its few
small calls take a quarter of that.{planted}

## The katas

{briefs}
"""


def readme(katas, minutes, allow=("numpy",)):
    titles = {kata.id: prompts.for_kata(kata).title for kata in katas}
    table = "\n".join(f"| {kata.id} | `katas/{kata.filename}` | {titles[kata.id]} |" for kata in katas)
    briefs = "\n\n".join(f"### {kata.id} {titles[kata.id]}\n\n"
                         f"{pack_words.for_pack(prompts.for_kata(kata).brief, katas)}" for kata in katas)
    count = f"{len(katas)} kata{'s' if len(katas) > 1 else ''}"
    found = [kata.id for kata in katas if planted(kata)]
    found = (f" For kata {', '.join(found)}, whose file runs with bugs in it, it checks shapes only and says "
             '"shapes ok", never "ok".') if found else ""
    names = [LANGUAGES[language] for language in allow]
    languages = " or ".join(names)
    rule = "NumPy only" if names == ["NumPy"] else f"{languages} (this round accepts both; `import torch` to use it)"
    others = "PyTorch, JAX, " if "torch" not in allow else "JAX, "
    return _README.format(minutes=minutes, count=count, table=table, briefs=briefs, first=katas[0].id,
                          languages=languages, rule=rule, others=others,
                          limit=_limit_seconds(), grader=_grader_seconds(), planted=found)


def _limit_seconds():
    """check.py's LIMIT_SECONDS, as the template says it."""
    return int(re.search(r"^LIMIT_SECONDS = (\d+)", _TEMPLATE.read_text(encoding="utf-8"), re.M).group(1))

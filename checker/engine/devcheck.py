"""`kata dev check`: what a kata still lacks, found without running any learner code.

A kata is its files (catalog.py says which). This reads them and lists, plainly, each piece that is
missing or disagrees with another: a bug id with a fix and no zoo file, a stub that is not its
reference minus the bodies, a quiz question with no answer function, a docstring example that fails.
The self-check tests run the same checks; what needs a sandbox (each zoo file fails and is named)
stays in them.
"""

import ast
import doctest
from dataclasses import dataclass, field

from checker.engine import catalog, prompts
from checker.engine.runner import hidden_tests
from checker.engine.testkit import variants_in

MIN_HINTS = 3  # as prompts.yaml's validation requires
MIN_CORRECT = 3  # correct variants: different honest ways to write the kata, each must pass
MIN_QUESTIONS = 8  # quiz questions of each kata
FOLDER_PARTS = ("__init__.py", "stub.py", "tests.py", "quiz.py", "public.py")  # variants.py is optional: tests.py may hold them


@dataclass
class KataReport:
    """What one kata lacks: one plain sentence a problem."""

    id: str
    slug: str
    problems: list = field(default_factory=list)

    @property
    def ok(self):
        return not self.problems


@dataclass
class DevReport:
    katas: list  # KataReport, in id order

    @property
    def ok(self):
        return all(kata.ok for kata in self.katas)

    def to_json(self):
        return {"ok": self.ok, "katas": [{"id": k.id, "slug": k.slug, "problems": k.problems} for k in self.katas]}


def check(katas):
    """Check each kata of `katas` (catalog.Kata)."""
    return DevReport([check_kata(kata) for kata in katas])


def check_kata(kata):
    report = KataReport(kata.id, kata.slug)
    for piece in (_files, _stub_matches_reference, _api, _prompts, _bug_ids, _public, _doctests):
        try:
            report.problems += piece(kata)
        except Exception as error:  # noqa: BLE001 - a broken piece is one more thing to report
            report.problems.append(f"{piece.__name__.strip('_').replace('_', ' ')}: could not check "
                                   f"({type(error).__name__}: {error})")
    return report


# --- files ---------------------------------------------------------------------------------------

def _files(kata):
    problems = [f"no {path.relative_to(catalog.ROOT)}" for path in (kata.stub_path, kata.solution_path)
                if not path.is_file()]
    problems += [f"no {_shown(kata.folder / part)}" for part in FOLDER_PARTS if not (kata.folder / part).is_file()]
    if kata.stub_path.is_file() and kata.pristine_path.is_file() and \
            kata.pristine_path.read_bytes() != kata.stub_path.read_bytes():
        problems.append(f"{_shown(kata.pristine_path)} (the stub `kata reset` restores) differs from "
                        f"{_shown(kata.stub_path)}")
    correct = kata.files("correct")
    if len(correct) < MIN_CORRECT:
        problems.append(f"{len(correct)} correct variant(s) in {_shown(kata.folder / 'correct')}/, "
                        f"at least {MIN_CORRECT} wanted")
    if not kata.files("uncatalogued"):
        problems.append(f"no bug outside the catalogue in {_shown(kata.folder / 'uncatalogued')}/")
    return problems


def _shown(path):
    return str(path.relative_to(catalog.ROOT))


# --- the stub is its reference minus the bodies ------------------------------------------------------

def public_api(path):
    """(module docstring, {name: (signature, docstring)}) of every public function, method and class."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            signature = ast.unparse(node.args) if isinstance(node, ast.FunctionDef) else ""
            found[node.name] = (signature, ast.get_docstring(node))
    return ast.get_docstring(tree), found


def _stub_matches_reference(kata):
    if not (kata.stub_path.is_file() and kata.solution_path.is_file()):
        return []
    stub_doc, stub = public_api(kata.stub_path)
    ref_doc, ref = public_api(kata.solution_path)
    problems = [] if stub_doc == ref_doc else ["the stub's module docstring differs from the reference's"]
    problems += [f"the stub lacks {name}() of the reference" for name in ref if name not in stub]
    problems += [f"the stub has {name}(), the reference does not" for name in stub if name not in ref]
    for name in stub.keys() & ref.keys():
        if stub[name][0] != ref[name][0]:
            problems.append(f"{name}: the stub's signature ({stub[name][0]}) is not the reference's ({ref[name][0]})")
        if stub[name][1] != ref[name][1]:
            problems.append(f"{name}: the stub's docstring differs from the reference's")
    text = kata.stub_path.read_text(encoding="utf-8")
    planted = getattr(kata.hidden(), "STUB_PLANTED", False)  # kata 10: the stub is a decoder with planted bugs
    if not planted and ("# TODO:" not in text or "raise NotImplementedError" not in text):
        problems.append("the stub has no `# TODO:` line or no `raise NotImplementedError`")
    return problems


def _api(kata):
    api = kata.hidden().API
    problems = []
    for path, what in ((kata.stub_path, "stub"), (kata.solution_path, "reference")):
        if path.is_file():
            _, found = public_api(path)
            problems += [f"API names {name}(), the {what} does not define it" for name in api if name not in found]
    return problems


# --- prompts.yaml ----------------------------------------------------------------------------------

def _prompts(kata):
    block = prompts.raw_blocks().get(kata.slug)
    if not isinstance(block, dict):
        return [f"no `{kata.slug}:` block under katas: in prompts.yaml"]
    problems = []
    hints = block.get("hints") or []
    if len(hints) < MIN_HINTS:
        problems.append(f"{len(hints)} hint(s) in prompts.yaml, at least {MIN_HINTS} wanted")
    questions = [q for q in block.get("questions") or [] if isinstance(q, dict)]
    if len(questions) < MIN_QUESTIONS:
        problems.append(f"{len(questions)} quiz question(s) in prompts.yaml, at least {MIN_QUESTIONS} wanted")
    answers = kata.part("quiz")
    for question in questions:
        name = question.get("answer")
        if name is not None and not callable(getattr(answers, str(name), None)):
            problems.append(f"quiz question {question.get('id')}: no function {name}() in {_shown(kata.folder)}/quiz.py")
    if not problems:  # the rest of the block's format, as `kata` reads it
        try:
            checked = prompts.validate({"format_version": prompts.FORMAT_VERSION, "katas": {kata.slug: block}},
                                       prompts.PROMPTS)
            tuple(checked[kata.slug].questions)  # parsed now: a bad question raises
        except prompts.PromptsError as error:
            problems.append(str(error))
    return problems


# --- bug ids: prompts.yaml's fixes, the zoo, the variants and the tests agree --------------------------

def _bug_ids(kata):
    block = prompts.raw_blocks().get(kata.slug) or {}
    fixes = set(block.get("bugs") or {})
    zoo = {path.stem.split("--")[0] for path in kata.files("zoo")}
    hidden = kata.hidden()
    namespaces = [vars(module) for module in (hidden, kata.part("variants")) if module is not None]
    variants = {f.variant_of: f.__name__ for namespace in namespaces for f in variants_in(namespace)}
    marked = {test.bug: test.__name__ for test in hidden_tests(hidden) if getattr(test, "bug", None)}
    problems = [f"bug {bug}: a fix in prompts.yaml, no zoo file {_shown(kata.folder)}/zoo/{bug}.py"
                for bug in sorted(fixes - zoo)]
    problems += [f"zoo file for {bug}: no fix for it in prompts.yaml" for bug in sorted(zoo - fixes)]
    problems += [f"variant {name} ({bug}): no fix for {bug} in prompts.yaml"
                 for bug, name in sorted(variants.items()) if bug not in fixes]
    problems += [f"variant {name} ({bug}): no zoo file shows a test recognising it"
                 for bug, name in sorted(variants.items()) if bug in fixes and bug not in zoo]
    problems += [f"test {name} is marked {bug}: no fix for it in prompts.yaml"
                 for bug, name in sorted(marked.items()) if bug not in fixes]
    return problems


# --- public checks and worked examples ------------------------------------------------------------------

def _public(kata):
    public = kata.part("public")
    if public is None:
        return []  # said by _files
    return [f"{_shown(kata.folder)}/public.py has no {name}()" for name in ("cases", "check")
            if not callable(getattr(public, name, None))]


def _doctests(kata):
    if not kata.solution_path.is_file():
        return []
    reference = kata.reference()
    problems, tried = [], 0
    for test in doctest.DocTestFinder().find(reference, reference.__name__):
        report = []
        result = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE).run(test, out=report.append)
        tried += result.attempted
        if result.failed:
            name = test.name.removeprefix(reference.__name__ + ".")
            problems.append(f"a docstring example of {name} fails in the reference:\n" + _indent("".join(report)))
    if not tried:
        problems.append("the reference's docstrings hold no example (>>> lines)")
    return problems


def _indent(text):
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("*****")]
    return "\n".join("    " + line for line in lines)

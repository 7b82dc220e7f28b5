"""`kata defend`: follow-up questions about the learner's own passing file, each answered by running it.

- what-if: a mutant of one of the file's lines (`defend_edits.py`) that changes what a contract call returns;
  the choices are what that mutant, the file as written and the other mutants really return on that call;
- predict: the shape or the values one of the file's assignments holds on an edge input, traced in the child;
- cost: a figure of the file's own cost, read from the kernel as the checks read it.
A question whose answer is the same for every implementation is a quiz question, not a defence one: a mutant
that changes nothing (or only breaks a name) is dropped, and so is a trace that the reference and the kata's
`rivals` all share. The definitions are the kata's `defend.yaml`; every answer is computed here, by running.
"""

import functools
import itertools
import random
from dataclasses import dataclass, field

import yaml

from checker.engine.questions import Question
from checker.practice import defend_edits as edits
from checker.practice import defend_probes as probing
from checker.practice import defend_run as run
from checker.practice.quiz import Asked

MAX_MUTANTS = 14  # mutants run per defence, at most (all in one child: a few ms of CPU each)
TRIVIAL_ERRORS = ("NameError", "UnboundLocalError", "AttributeError")  # a needed name (or attribute) removed
# breaks every implementation alike: no question
REFUSED = "defend a passing solution: `kata check {id}` first"


@dataclass
class DefenceQuestion:
    kind: str  # "what-if" | "predict" | "cost"
    line: int | None
    call: run.Call
    asked: Asked  # as the quiz puts, reads and grades it
    edit: edits.Edit | None = None
    answer: object = None  # what the JSON says: the right choice's text, the numbers or the shape
    tolerance: float | None = None

    def to_json(self):
        return {"kind": self.kind, "line": self.line,
                "edit": None if self.edit is None else self.edit.to_json(),
                "call": run.call_json(self.call), "prompt": self.asked.prompt,
                "choices": list(self.asked.choices) or None, "answer": self.answer}


@dataclass
class Defence:
    kata: object  # catalog.Kata
    file: str
    questions: list = field(default_factory=list)
    refused: str | None = None  # why no question was asked (the file does not pass, cannot be parsed)

    def to_json(self):
        return {"kata": self.kata.id, "file": self.file, "questions": [q.to_json() for q in self.questions],
                **({"refused": self.refused} if self.refused else {})}


@functools.lru_cache(maxsize=None)
def spec(kata):
    """The kata's defend.yaml, or None (read once per process: the package's own data, never changed)."""
    path = kata.folder / "defend.yaml"
    if not path.is_file():
        return None
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(data, dict) or data.get("format") != 1:
        raise ValueError(f"{path}: expected a mapping with format: 1")
    return data


def questions(kata, path, source, count=4, seed=0, kinds=("what-if", "predict", "cost"), telling_only=False):
    """Up to `count` questions about the file `source` (the bytes read once; the file is assumed to pass),
    mixing the `kinds` in that order, round-robin. `telling_only`: every what-if on an input where the edit
    changes the answer (else one in four, drawn, asks on an input where it does not). The learner's file, its
    instrumented copy and its mutants run in one sandbox child (`defend_host.Host`)."""
    from checker.practice.defend_host import Host
    from checker.sandbox.torch_bridge import imports_torch

    definition = spec(kata) or {}
    calls = run.calls_of(definition)
    rng = random.Random(f"{seed}:{kata.id}")
    want = {kind: sum(1 for n in range(count) if kinds[n % len(kinds)] == kind) for kind in kinds}
    pools = {kind: [] for kind in kinds}
    host = None
    try:
        functions = definition.get("functions") or None
        probes = probing.probes(source, functions) if want.get("predict") else []
        mutants = _spread(edits.mutants(source, definition.get("edits") or ["remove"], functions), rng) \
            if want.get("what-if") and calls else []
        mutants = list(itertools.islice((edit for edit in mutants if edits.compiles(edit)), MAX_MUTANTS))
        files = [source, probing.instrumented(source, probes), *(edit.source for edit in mutants)]
        host = Host(path, files, torch=b"torch" in source and imports_torch(source), seconds=run.MUTANT_SECONDS)
        if mutants:
            pools["what-if"] = what_ifs(kata, host, mutants, calls, rng, want["what-if"] + 1, telling_only)
        if probes:
            pools["predict"] = predictions(kata, host, probes, definition, calls, rng, want["predict"] + 1)
    except edits.Unparsable:
        pass
    finally:
        if host is not None:
            host.close()
    if want.get("cost"):
        from checker.practice.defend_cost import costs

        pools["cost"] = costs(kata, path, source, definition, want["cost"])
    chosen = []
    while len(chosen) < count and any(pools.values()):
        for kind in kinds:
            if pools[kind] and len(chosen) < count:
                chosen.append(pools[kind].pop(0))
    return chosen


# --- what-if ---------------------------------------------------------------------------------------

FIRST_MUTANT = 2  # the host's files: the learner's (0), its instrumented copy (1), then the mutants


def what_ifs(kata, host, mutants, calls, rng, count, telling_only=False):
    original = run.outcomes(host, 0, calls)
    if original is None:
        return []
    tried, telling = [], []
    for number, edit in enumerate(mutants, start=FIRST_MUTANT):
        got = run.outcomes(host, number, calls)
        if got is None:
            continue
        tried.append(got)
        if any(o.error in TRIVIAL_ERRORS for o in got) or all(run.same(a, b) for a, b in zip(original, got)):
            continue  # breaks a name (as anywhere) or changes nothing on the contract's inputs: no question
        telling.append((edit, got))
        answers = [t for t in telling if _gives_a_value(t[1], original)] if telling_only else telling
        if len(answers) >= count and len(tried) >= 6:
            break
    if telling_only:  # for an interviewer: a changed answer says more than an error
        telling.sort(key=lambda t: not _gives_a_value(t[1], original))
    return [_what_if(kata, edit, got, original, tried, calls, rng, telling_only) for edit, got in telling]


def _gives_a_value(got, original):
    """Whether a mutant returns a (changed) value on some call, not only errors."""
    return any(not o.is_error and not run.same(o, a) for o, a in zip(got, original))


def _spread(mutants, rng):
    """The mutants in a seeded order that takes one line's edits apart: each line's first, then seconds."""
    rng.shuffle(mutants)
    seen, first, later = set(), [], []
    for edit in mutants:
        (later if edit.line in seen else first).append(edit)
        seen.add(edit.line)
    return first + later


def _what_if(kata, edit, got, original, tried, calls, rng, telling_only=False):
    from checker.present import defend_text as text

    differing = [n for n, (a, b) in enumerate(zip(original, got)) if not run.same(a, b)]
    if telling_only:  # a changed value first
        differing.sort(key=lambda n: got[n].is_error)
    functions = {calls[n].function for n in differing}  # a line another function never reaches is no question
    agreeing = [n for n in range(len(calls)) if n not in differing and not got[n].is_error
                and calls[n].function in functions]
    index = rng.choice(agreeing) if agreeing and rng.random() < 0.25 and not telling_only else differing[0]
    call, mine, theirs = calls[index], original[index], got[index]
    row = run.telling_row(mine, theirs)
    right = text.outcome_text(theirs, row, same=run.same(theirs, mine))
    others = [other[index] for other in tried]
    options = [right, text.outcome_text(mine, row, same=True)]
    options += [text.outcome_text(o, row, same=run.same(o, mine)) for o in others if not o.is_error]
    options += text.fillers(mine, row)
    options += [text.outcome_text(o, row) for o in others if o.is_error and o.error not in TRIVIAL_ERRORS]
    choices = _choices(right, options, rng)
    prompt = text.what_if_prompt(edit, call, row)
    explanation = text.what_if_explanation(edit, call, mine, theirs, row)
    question = Question(f"defend-what-if-{edit.line}", kata.slug, "choice", prompt, explanation,
                        choices=tuple({"text": c, "correct": c == right} for c in choices))
    asked = Asked(question, prompt, choices.index(right), explanation, choices)
    return DefenceQuestion("what-if", edit.line, call, asked, edit, right)


def _choices(right, options, rng, most=4):
    unique = []
    for option in options:
        if option not in unique:
            unique.append(option)
    others = [o for o in unique if o != right]
    chosen = [right] + others[:most - 1]
    rng.shuffle(chosen)
    return chosen


# --- predict ---------------------------------------------------------------------------------------

MAX_TRACES = 24  # (line, input) pairs traced per defence, at most, in a drawn order


def predictions(kata, host, probes, definition, calls, rng, count):
    """Traces in a drawn order of (line, edge input) until `count` values are found that no rival shares (a
    shape only when too few values are), one question a line."""
    from checker.present import defend_text as text

    edge = [call for call in calls if call.edge]
    functions = definition.get("functions") or None
    if not edge:
        return []
    rivals = tuple(definition.get("rivals") or ())
    pairs = [(probe, call) for probe in probes for call in edge]
    rng.shuffle(pairs)
    values, shapes, lines = [], [], set()
    pairs = pairs[:MAX_TRACES]
    traced = {}
    for call in edge:  # one request a call
        traced.update(run.traces(host, 1, [probe for probe, asked in pairs if asked is call], [call]))
    for probe, call in pairs:
        if probe.line in lines:
            continue
        report = traced.get((probe.line, call.id))
        if report is None or report["kind"] not in "biuf" or _trivial(report, call):
            continue
        form, answer = text.predict_form(report)
        if form == "other" or (form, answer) in _shared_by_rivals(kata, rivals, tuple(functions or ())).get(
                call.id, ()):
            continue  # every implementation of the kata holds it somewhere: a quiz fact
        lines.add(probe.line)
        (shapes if form == "shape" else values).append((probe, call, report, form, answer))
        if len(values) >= count:
            break
    return [_predict(kata, *found, rng) for found in (values + shapes)[:count]]


def _trivial(report, call):
    """What any implementation has: an input's shape, or one whole number (a size, a loop counter)."""
    inputs = [tuple(getattr(a, "shape", ())) for a in call.steps[-1].args]
    whole = report["size"] == 1 and all(float(v).is_integer() for v in report["values"])
    return whole or report["kind"] in "bi" and report["size"] == 1 or report["size"] > 4 and report["shape"] in inputs


@functools.lru_cache(maxsize=None)
def _shared_by_rivals(kata, rivals, functions):
    """{call id: {(form, answer)}} that every rival (the reference, the yaml's `rivals`) traces at some line on
    each edge call: trusted files, the same for every learner, so traced once per process (a grade worker asks
    for many candidates), all in one child."""
    from checker.practice.defend_host import Host
    from checker.present import defend_text as text

    calls = [call for call in run.calls_of(spec(kata)) if call.edge]
    functions = list(functions) or None
    files = [f for f in [kata.solution_path, *(kata.folder / name for name in rivals)] if f.is_file()]  # a wheel
    sources = [f.read_bytes() for f in files]  # ships the references, not the correct/ files
    probes = [probing.probes(source, functions) for source in sources]
    host = Host(kata.solution_path, [probing.instrumented(source, found) for source, found in zip(sources, probes)],
                seconds=run.MUTANT_SECONDS)
    common = {}
    try:
        for call in calls:
            for number, found in enumerate(probes):
                seen = {text.predict_form(report) for report in run.traces(host, number, found, [call]).values()}
                common[call.id] = seen if number == 0 else common[call.id] & seen
    finally:
        host.close()
    return {call_id: frozenset(shared) for call_id, shared in common.items()}


def _predict(kata, probe, call, report, form, answer, rng):
    from checker.present import defend_text as text

    prompt = text.predict_prompt(probe, call, form, report["kind"])
    explanation = text.predict_explanation(probe, call, report, form)
    if form == "choice":
        right = answer
        choices = _choices(right, [right, *text.value_fillers(report)], rng)
        question = Question(f"defend-predict-{probe.line}", kata.slug, "choice", prompt, explanation,
                            choices=tuple({"text": c, "correct": c == right} for c in choices))
        return DefenceQuestion("predict", probe.line, call, Asked(question, prompt, choices.index(right), explanation,
                                                                   choices), answer=right)
    expected = tuple(answer) if form == "shape" else list(answer)
    question = Question(f"defend-predict-{probe.line}", kata.slug, "predict", prompt, explanation,
                        tolerance=None if form == "shape" else 0.01, decimals=None if form == "shape" else 2)
    return DefenceQuestion("predict", probe.line, call, Asked(question, prompt, expected, explanation),
                           answer=list(answer), tolerance=question.tolerance)

"""prompts.yaml: each kata's title, brief, method, hints and bug fixes. Data, validated on load.

The brief is the task and its contract, all a strict mock interview shows; the method (optional) is the way to
the answer, the trick an interviewer waits to hear, shown with the brief everywhere else (`KataPrompts.task`)."""

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from checker.engine.catalog import DATA, all_katas
from checker.engine.questions import QuizError, parse_questions

PROMPTS = DATA / "prompts.yaml"
FORMAT_VERSION = 1
_KATA_KEYS = {"title", "brief", "method", "hints", "bugs", "questions"}
_MIN_HINTS = 3


class PromptsError(ValueError):
    """prompts.yaml is not what the checker expects; the message names the file and the entry."""


@dataclass(frozen=True)
class KataPrompts:
    title: str
    brief: str
    hints: tuple[str, ...]
    fixes: dict  # bug id -> one-line fix
    questions: tuple = ()  # questions.Question
    means: dict = None  # bug id -> the catalogue's one line of what the mistake is (ids first catalogued here)
    method: str = ""  # the way to the answer: never in a strict mock's brief

    @property
    def task(self):
        """The brief, then the method: what a learner is shown outside a strict mock."""
        return f"{self.brief}\n{self.method}" if self.method else self.brief


def load(path=PROMPTS, lazy=False):
    """Every kata's prompts by slug, validated. The file is read once a process; each kata's questions are
    parsed when first asked for (they import the kata's quiz.py: 30 ms of `kata check` for all fourteen, where
    one check needs none), all of them here unless `lazy`."""
    prompts = _validated(path)
    if not lazy:
        _check_questions(prompts, path)
    return prompts


@lru_cache(maxsize=None)
def _validated(path):
    return validate(_read(path), Path(path))


def _check_questions(prompts, path):
    """Every question parsed (a bad one raises, naming the file and the entry; each kata's once a process), and
    their ids unique."""
    ids = Counter(q.id for entry in prompts.values() for q in entry.questions)
    duplicated = sorted(i for i, count in ids.items() if count > 1)
    if duplicated:
        raise PromptsError(f"{path}: questions: question ids must be unique; repeated: {', '.join(duplicated)}")


class _Questions:
    """A kata's questions, parsed on first use; a tuple's reading (iteration, len, index, truth)."""

    def __init__(self, slug, entries, where, path):
        self._source, self._parsed = (slug, entries, where, path), None

    def _all(self):
        if self._parsed is None:
            slug, entries, where, path = self._source
            try:
                self._parsed = tuple(parse_questions(slug, entries, where))
            except QuizError as error:
                raise PromptsError(f"{path}: {error}") from None
        return self._parsed

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return len(self._all())

    def __getitem__(self, index):
        return self._all()[index]


def raw_blocks(path=PROMPTS):
    """Each kata's block as the file writes it, unvalidated (for `kata dev check`)."""
    data = _read(path)
    blocks = data.get("katas") if isinstance(data, dict) else None
    return blocks if isinstance(blocks, dict) else {}


def _read(path):
    path = Path(path)
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as error:
        raise PromptsError(f"{path}: cannot read it: {error}") from None


def validate(data, path):
    def fail(where, problem):
        raise PromptsError(f"{path}: {where}: {problem}")

    if not isinstance(data, dict):
        fail("top level", "expected a mapping with format_version and katas")
    if data.get("format_version") != FORMAT_VERSION:
        fail("format_version", f"expected {FORMAT_VERSION}, found {data.get('format_version')!r}")
    unknown = set(data) - {"format_version", "katas"}
    if unknown:
        fail("top level", f"unknown keys {sorted(unknown)}")
    if not isinstance(data.get("katas"), dict):
        fail("katas", "expected a mapping of kata slug to its prompts")
    prompts = {}
    known = {kata.slug for kata in all_katas()}
    for slug, block in data["katas"].items():
        where = f"katas.{slug}"
        if slug not in known:
            fail(where, f"no such kata (katas are: {', '.join(sorted(known))})")
        if not isinstance(block, dict):
            fail(where, "expected a mapping")
        if set(block) - _KATA_KEYS:
            fail(where, f"unknown keys {sorted(set(block) - _KATA_KEYS)} (allowed: {sorted(_KATA_KEYS)})")
        for key in ("title", "brief"):
            if not isinstance(block.get(key), str) or not block[key].strip():
                fail(f"{where}.{key}", "missing or empty text")
        if "method" in block and (not isinstance(block["method"], str) or not block["method"].strip()):
            fail(f"{where}.method", "an empty method: give the text, or leave the key out")
        hints = block.get("hints")
        if not isinstance(hints, list) or len(hints) < _MIN_HINTS or not all(isinstance(h, str) for h in hints):
            fail(f"{where}.hints", f"expected a list of at least {_MIN_HINTS} texts")
        bugs = block.get("bugs") or {}
        if not isinstance(bugs, dict):
            fail(f"{where}.bugs", "expected a mapping of bug id to {fix: text}")
        fixes, means = {}, {}
        for bug_id, entry in bugs.items():
            if not isinstance(entry, dict) or not {"fix"} <= set(entry) <= {"fix", "means"} or \
                    not all(isinstance(text, str) for text in entry.values()):
                fail(f"{where}.bugs.{bug_id}", "expected the key fix (and maybe means), each holding a text")
            fixes[bug_id] = entry["fix"].strip()
            if "means" in entry:
                means[bug_id] = entry["means"].strip()
        prompts[slug] = KataPrompts(block["title"].strip(), block["brief"].strip(), tuple(h.strip() for h in hints),
                                    fixes, _Questions(slug, block.get("questions", []), f"{where}.questions", path),
                                    means, (block.get("method") or "").strip())
    return prompts


def for_kata(kata, frontend="numpy"):
    """The kata's prompts, spelled for a file of `frontend` ("torch": in PyTorch's words, spelling.py)."""
    from checker.engine import spelling

    prompts = load(lazy=True)  # a check reads one block's texts; the quiz parses its questions when it asks
    if kata.slug not in prompts:
        raise PromptsError(f"{PROMPTS}: katas: no entry for kata {kata}")
    return spelling.prompts_in(prompts[kata.slug], frontend)


def fix_of(bug_id, frontend="numpy"):
    """The one-line fix of a catalogued bug, from the first kata whose block has it (ids are global)."""
    from checker.engine import spelling

    fix = next((entry.fixes[bug_id] for entry in load(lazy=True).values() if bug_id in entry.fixes), "")
    return spelling.in_frontend(fix, frontend)


def means_of(bug_id, slug=None):
    """What a catalogued mistake is, in the catalogue's one line: kata `slug`'s own wording where it has one,
    else the first kata's that catalogues the id (ids are global), else ""."""
    prompts = load(lazy=True)
    own = prompts[slug].means if slug in prompts else {}
    return own.get(bug_id) or next((entry.means[bug_id] for entry in prompts.values() if bug_id in entry.means), "")

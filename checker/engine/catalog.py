"""Which katas exist, found by convention: `solutions/NN_slug.py` + `katas/NN_slug.py`
+ the kata's folder `checker/hidden/<slug>/` + a `slug:` block in prompts.yaml. No registry to edit.

Everything else about a kata lives in its folder, beside its hidden tests:
`tests.py` (API and hidden tests), `variants.py` (what each catalogued bug computes), `quiz.py` (the
functions that compute its quiz answers), `public.py` (the shape checks of a candidate's pack), and the
files that prove the tests: `zoo/<bug-id>[--form].py`, `correct/*.py`, `uncatalogued/*.py`.
"""

import importlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # a checkout: katas/, solutions/, prompts.yaml; else site-packages


def _data():
    """Where solutions/ and prompts.yaml are read: the wheel's copy (`checker/_data/`, made by setup.py at
    build time), else the checkout's top level (an editable install). The package's own folder is what
    importlib.resources.files("checker") gives for an installed wheel; read as a path here, since importing
    importlib.resources would cost `kata check` 7 ms at start-up, and a reference must be a file anyway (the
    parent imports it by path: `load_module`)."""
    packaged = Path(__file__).resolve().parents[1] / "_data"
    return packaged if packaged.is_dir() else ROOT


DATA = _data()
MANIFEST = "kata-pack.json"  # in a candidate's workspace: the katas and seed `kata pack` issued
ROSTER = "kata-roster.jsonl"  # beside the packs, on the hiring team's side: never inside a pack
HIDDEN = ROOT / "checker" / "hidden"  # one folder per kata
_NAME = re.compile(r"^(\d\d)_([a-z0-9_]+)\.py$")


class UnknownKata(LookupError):
    pass


@dataclass(frozen=True)
class Kata:
    id: str  # "03"
    slug: str  # "causal-mask"
    name: str = ""  # the file's name after the id when it says more than the slug: "flash_attention"

    @property
    def filename(self):
        return f"{self.id}_{self.name or self.slug.replace('-', '_')}.py"

    @property
    def stub_path(self):
        return ROOT / "katas" / self.filename

    @property
    def pristine_path(self):
        """The stub as shipped with the package, never edited by a learner (`kata reset` restores it)."""
        return self.folder / "stub.py"

    @property
    def solution_path(self):
        return DATA / "solutions" / self.filename

    @property
    def package(self):
        """The kata's own package: `checker.hidden.causal_mask`."""
        return f"checker.hidden.{self.slug.replace('-', '_')}"

    @property
    def folder(self):
        """The kata's folder: its hidden tests, variants, quiz answers, public checks and zoo."""
        return HIDDEN / self.slug.replace("-", "_")

    @property
    def hidden_module_name(self):
        return f"{self.package}.tests"

    def hidden(self):
        """The hidden tests' module."""
        return importlib.import_module(self.hidden_module_name)

    def part(self, name):
        """One module of the kata's folder (`quiz`, `public`, `variants`), or None if it has none."""
        if not (self.folder / f"{name}.py").is_file():
            return None
        return importlib.import_module(f"{self.package}.{name}")

    def files(self, kind):
        """The kata's proving files of one kind (`zoo`, `correct`, `uncatalogued`), sorted."""
        return sorted((self.folder / kind).glob("*.py"))

    def reference(self):
        """The reference solution, imported here in the parent (it is trusted code), once per process: never
        read from disk again after a learner's code has run."""
        if self not in _REFERENCES:
            _REFERENCES[self] = load_module(self.solution_path, f"kata_reference_{self.id}")
        return _REFERENCES[self]

    def __str__(self):
        return f"{self.id} {self.slug}"


_REFERENCES = {}  # Kata -> its reference module


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def all_katas():
    """Every kata with a reference solution, in id order.

    The slug is the name of the kata's folder in checker/hidden/, which the file's name starts or ends with:
    `08_flash_attention.py` with a folder `flash/` is kata 08, slug `flash`; `11_attention_backward.py` with
    a folder `backward/` is kata 11, slug `backward`.
    """
    folders = {path.name for path in HIDDEN.iterdir() if (path / "tests.py").is_file()}
    katas = []
    for path in sorted((DATA / "solutions").glob("*.py")):
        found = _NAME.match(path.name)
        if found:
            number, name = found.groups()
            folder = max((f for f in folders if name == f or name.startswith(f + "_") or name.endswith("_" + f)),
                         key=len, default=name)
            katas.append(Kata(number, folder.replace("_", "-"), "" if folder == name else name))
    return katas


def find(key):
    """A kata by id (`05`, `5`) or slug (`kv-cache`, `kv_cache`)."""
    key = str(key).strip().lower().replace("_", "-")
    katas = all_katas()
    for kata in katas:
        if key in (kata.id, kata.slug) or (key.isdigit() and int(key) == int(kata.id)):
            return kata
    choices = ", ".join(str(kata) for kata in katas)
    raise UnknownKata(f"unknown kata '{key}': choose one of {choices}")


class NoWorkspace(LookupError):
    pass


def is_checkout(folder=ROOT):
    """Whether kata runs from a clone of its repository (an editable install), itself a learner's workspace."""
    return (folder / "katas").is_dir() and (folder / "solutions").is_dir() and (folder / "checker").is_dir()


def find_workspace(start=None):
    """The learner's workspace: the nearest folder holding `katas/`, from `start` up; else the checkout kata
    runs from; else NoWorkspace (an installed kata outside any workspace: `kata init` makes one)."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "katas").is_dir():
            return folder
    if is_checkout():
        return ROOT
    raise NoWorkspace(f"no kata workspace here or above {here}: `kata init` makes one (then cd kata-practice)")


def learner_file(kata, workspace=None):
    return (workspace or find_workspace()) / "katas" / kata.filename

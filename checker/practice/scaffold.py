"""`kata init`: lay out a learner's workspace (katas/ with every stub, a README, a starter notebook, .kata/),
never touching a file the learner already has. `torch`: the stubs in PyTorch's words (torch_stubs.py)."""

from dataclasses import dataclass, field
from pathlib import Path

from checker.engine import catalog
from checker.engine.workspace import pristine_stub

README = "README.md"
NOTEBOOK = "katas.ipynb"  # the starter notebook: the magic loaded, then one cell per kata with its stub


class InitError(Exception):
    pass


@dataclass
class Layout:
    folder: Path
    written: list = field(default_factory=list)  # paths written, relative to folder
    kept: list = field(default_factory=list)  # the learner's files left as they were (differing from the stub)
    same: list = field(default_factory=list)  # files already there, equal to what init would write

    @property
    def fresh(self):
        return not self.kept and not self.same


def learner_readme():
    return Path(__file__).with_name("learner_readme.md").read_text(encoding="utf-8")


def stub_of(kata, torch=False):
    """The stub a workspace starts from: the shipped one, or (torch) its PyTorch words where the kata has them
    (kata 10 hands out a NumPy decoder)."""
    from checker.engine.torch_stubs import torch_stub

    return (torch and torch_stub(kata)) or pristine_stub(kata)


def planned(folder, torch=False):
    """What a workspace holds: {path relative to the folder: text}."""
    from checker.practice import starter

    katas = catalog.all_katas()
    files = {f"katas/{kata.filename}": stub_of(kata, torch) for kata in katas}
    missing = [name for name, text in files.items() if text is None]
    if missing or not files:
        raise InitError(f"this kata install lacks the stubs ({', '.join(missing) or 'no katas'}): reinstall it")
    stubs = [(kata, files[f"katas/{kata.filename}"]) for kata in katas]
    return {README: learner_readme(), NOTEBOOK: starter.notebook(stubs), **files}


def init(folder, torch=False):
    """Write every file of a workspace that `folder` lacks; keep every file it has. Returns the Layout."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InitError(f"{folder} is a file, not a folder")
    layout = Layout(folder)
    files = planned(folder, torch)
    for name in ("katas", ".kata"):
        target = folder / name
        if target.is_symlink() or (target.exists() and not target.is_dir()):
            raise InitError(f"{target} is not a folder: move it away first")
        target.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        target = folder / name
        if target.is_symlink() or target.exists():
            same = target.is_file() and not target.is_symlink() and _reads(target) == text
            (layout.same if same else layout.kept).append(name)
            continue
        with open(target, "x", encoding="utf-8") as sink:  # never over a file made meanwhile
            sink.write(text)
        layout.written.append(name)
    return layout


def _reads(path):
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None

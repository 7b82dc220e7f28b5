"""Changes to the learner's files: restoring a stub or a backup, always keeping a backup first."""

import time
from dataclasses import dataclass
from pathlib import Path

from checker.engine.catalog import learner_file


class ResetError(Exception):
    pass


@dataclass
class Backup:
    path: Path
    saved: float  # time of the backup (its file's modification time)
    size: int


def pristine_stub(kata):
    """The stub as the project ships it (checker/hidden/<slug>/stub.py), whatever the learner edited or
    committed in katas/."""
    try:
        return kata.pristine_path.read_text(encoding="utf-8")
    except OSError:
        return None


def backup_folder(workspace):
    return Path(workspace) / ".kata" / "backups"


def back_up(kata, workspace):
    """Copy the learner's file to .kata/backups/NN_slug.YYYYmmdd-HHMMSS[-N].py; its path (None: no file)."""
    target = learner_file(kata, workspace)
    if not target.exists():
        return None
    stem, folder = f"{target.stem}.{time.strftime('%Y%m%d-%H%M%S')}", backup_folder(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    backup, number = folder / f"{stem}.py", 1
    while backup.exists():
        number += 1
        backup = folder / f"{stem}-{number}.py"
    backup.write_bytes(target.read_bytes())
    return backup


def seeded_stub(kata, seed):
    """The stub a kata draws for `seed` (kata 10 plants its bugs by seed), or None for a kata that has one stub."""
    public = kata.part("public")
    return public.stub(seed) if hasattr(public, "stub") else None


def reset(kata, workspace, stub=None):
    """Write the shipped stub (or `stub`) over the learner's file; return the backup's path (None: nothing
    to keep)."""
    stub = stub if stub is not None else pristine_stub(kata)
    if stub is None:
        raise ResetError(f"cannot find the shipped stub of {kata} at {kata.pristine_path}: reinstall the project")
    target = learner_file(kata, workspace)
    if target.exists() and target.read_text(encoding="utf-8", errors="replace") == stub:
        return None
    backup = back_up(kata, workspace)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(stub, encoding="utf-8")
    return backup


def backups(workspace, kata=None):
    """The backups kept in the workspace, newest first (of one kata when given)."""
    folder = backup_folder(workspace)
    found = []
    for path in folder.glob("*.py") if folder.is_dir() else ():
        if kata is None or path.name.startswith(Path(kata.filename).stem + "."):
            info = path.stat()
            found.append(Backup(path, info.st_mtime, info.st_size))
    return sorted(found, key=lambda b: (b.saved, b.path.name), reverse=True)


def restore(kata, workspace, backup=None):
    """Bring a backup (default: the newest of the kata) back as the learner's file, backing up the file
    it replaces first. Returns (restored backup, new backup of the replaced file or None)."""
    if backup is None:
        kept = backups(workspace, kata)
        if not kept:
            raise ResetError(f"no backup of {kata} in {backup_folder(workspace)}")
        backup = kept[0].path
    backup = Path(backup)
    if not backup.is_file():
        candidate = backup_folder(workspace) / backup.name
        if not candidate.is_file():
            raise ResetError(f"no such backup: {backup} (`kata backups {kata.id}` lists them)")
        backup = candidate
    target = learner_file(kata, workspace)
    text = backup.read_bytes()
    current = target.read_bytes() if target.exists() else None
    stub = pristine_stub(kata)
    keep = current is not None and current != text and current.decode("utf-8", "replace") != stub
    replaced = back_up(kata, workspace) if keep else None  # the stub itself needs no backup
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text)
    return backup, replaced

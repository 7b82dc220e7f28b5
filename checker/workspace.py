"""Changes to the learner's files: restoring a stub, always keeping a backup first."""

import subprocess
import time

from checker.catalog import ROOT, learner_file


class ResetError(Exception):
    pass


def pristine_stub(kata):
    """The stub as the project ships it.

    In a clone the learner edits katas/ in place, so the shipped text is the one git committed.
    """
    try:
        shown = subprocess.run(["git", "-C", str(ROOT), "show", f"HEAD:katas/{kata.filename}"],
                               capture_output=True, check=True)
        return shown.stdout.decode("utf-8")
    except (OSError, subprocess.CalledProcessError):
        return None


def reset(kata, workspace):
    """Write the pristine stub over the learner's file; return the backup's path (None if no file)."""
    stub = pristine_stub(kata)
    target = learner_file(kata, workspace)
    if stub is None:
        if target.resolve() == kata.stub_path.resolve():
            raise ResetError(f"cannot find the original stub of {kata}: the project at {ROOT} is not a git "
                             "checkout, so katas/ holds your edits only")
        stub = kata.stub_path.read_text(encoding="utf-8")
    backup = None
    if target.exists():
        current = target.read_text(encoding="utf-8", errors="replace")
        if current == stub:
            return None
        backup = workspace / ".kata" / "backups" / f"{target.stem}.{time.strftime('%Y%m%d-%H%M%S')}.py"
        backup.parent.mkdir(parents=True, exist_ok=True)
        backup.write_bytes(target.read_bytes())
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(stub, encoding="utf-8")
    return backup

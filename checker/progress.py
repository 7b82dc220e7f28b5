"""The learner's progress, kept in the workspace's `.kata/progress.json`.

Writes are atomic (a temporary file, then a rename), so an interrupted write loses nothing.
A corrupted or foreign file gives a one-line warning and is rebuilt, never a crash.
"""

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

FORMAT_VERSION = 1


@dataclass
class KataProgress:
    status: str = "unchecked"
    attempts: int = 0
    hints_used: int = 0
    first_seen: float | None = None  # time of the first check
    seconds_to_pass: float | None = None  # from the first check to the first pass

    @property
    def ever_passed(self):
        return self.seconds_to_pass is not None


@dataclass
class Progress:
    path: Path
    katas: dict = field(default_factory=dict)  # id -> KataProgress
    warning: str | None = None  # set when the file on disk could not be used

    def of(self, kata_id):
        return self.katas.setdefault(kata_id, KataProgress())

    def record_check(self, kata_id, status, now=None):
        now = time.time() if now is None else now
        entry = self.of(kata_id)
        entry.attempts += 1
        entry.status = status
        if entry.first_seen is None:
            entry.first_seen = now
        if status == "passed" and entry.seconds_to_pass is None:
            entry.seconds_to_pass = round(now - entry.first_seen, 1)

    def save(self):
        data = {"format_version": FORMAT_VERSION, "katas": {k: asdict(v) for k, v in sorted(self.katas.items())}}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".progress-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(data, stream, indent=2)
            os.replace(temporary, self.path)
        except BaseException:
            os.unlink(temporary)
            raise


def load(workspace):
    """The workspace's progress; an unreadable file is reported in `warning` and started afresh."""
    path = Path(workspace) / ".kata" / "progress.json"
    if not path.exists():
        return Progress(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"format_version {data.get('format_version')!r}")
        katas = {str(k): KataProgress(**v) for k, v in data["katas"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        return Progress(path, warning=f"{path} could not be read ({error}); starting a fresh record")
    return Progress(path, katas)

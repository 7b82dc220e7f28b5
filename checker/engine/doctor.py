"""`kata doctor`: what this machine gives the sandbox, found by starting one (the sandbox's own report of the
walls its child raised: checker/sandbox/isolation.py), and what `kata grade` therefore refuses. Data about
each wall and its fix: doctor.yaml. Rendering: doctor_text.py."""

import importlib.util
import platform
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from checker.sandbox import wire


@dataclass(frozen=True)
class Wall:
    name: str
    what: str
    stands: bool
    why: str = ""  # why it is missing, as the child said
    fix: str = ""


@dataclass(frozen=True)
class Extra:
    name: str
    what: str
    version: str  # "" where it is missing
    fix: str


@dataclass
class Report:
    system: str  # "Linux 6.18.44 x86_64, Python 3.11.7"
    linux: bool
    walls: list = field(default_factory=list)
    landlock_abi: int = 0
    memory: str = ""  # how the child's memory is bounded here
    machine_memory: str = ""  # the cgroup limit this process runs under, if any
    extras: list = field(default_factory=list)
    error: str = ""  # no sandbox could start
    not_linux: str = ""  # the advice for a system that is not Linux

    @property
    def missing(self):
        return [wall for wall in self.walls if not wall.stands]

    @property
    def grading(self):
        """Whether `kata grade` runs without --insecure."""
        return not self.error and bool(self.walls) and not self.missing


@lru_cache(maxsize=None)
def _data():
    text = Path(__file__).with_name("doctor.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def probe():
    """The sandbox's own report: {"applied", "missing", "level"} from an empty file's child (no disk)."""
    from checker.sandbox import HostError, SandboxError
    from checker.sandbox.box import probe as probe_sandbox

    try:
        return probe_sandbox()
    except HostError as error:  # the machine's own failure: said as `kata grade` says it
        return {"error": f"{error}; nothing was graded"}
    except SandboxError as error:
        return {"error": f"no sandbox could be started here to grade in ({error}): is the machine overloaded?"}


def landlock_abi():
    from checker.sandbox import isolation

    return isolation.landlock_abi()


def examine():
    """The report of this machine."""
    data, linux = _data(), sys.platform == "linux"
    report = Report(f"{platform.system()} {platform.release()} {platform.machine()}, "
                    f"Python {platform.python_version()}", linux, not_linux="" if linux else data["not_linux"])
    found = probe()
    report.error = found.get("error", "")
    applied, missing = set(found.get("applied", ())), found.get("missing", {})
    if not report.error:
        walls = data["walls"]
        report.walls = [Wall(name, walls[name]["what"], name in applied and name not in missing,
                             str(missing.get(name, "" if name in applied else "not reported")),
                             walls[walls[name].get("fix_of", name)]["fix"]) for name in wire.FULL_ISOLATION]
    report.landlock_abi = landlock_abi()
    from checker.sandbox import Limits

    report.memory = (f"RLIMIT_AS: {Limits().memory_mb} MiB for the child above Python and NumPy's own"
                     if linux else "not enforced here (macOS ignores RLIMIT_AS); the wall clock still holds")
    report.machine_memory = _cgroup_memory()
    report.extras = [Extra(name, entry["what"], _version(entry["module"]), entry["fix"])
                     for name, entry in data["extras"].items()]
    return report


def _version(module):
    if importlib.util.find_spec(module) is None:
        return ""
    from importlib import metadata

    try:
        return metadata.version(module if module != "IPython" else "ipython")
    except metadata.PackageNotFoundError:
        return "present"


def _cgroup_memory():
    """The memory limit of this process's cgroup (v2), or "" where none is set or readable."""
    try:
        with open("/proc/self/cgroup", encoding="ascii") as source:
            path = next((line.split("::", 1)[1].strip() for line in source if line.startswith("0::")), None)
        if path is None:
            return ""
        with open(f"/sys/fs/cgroup{path}/memory.max", encoding="ascii") as source:
            limit = source.read().strip()
    except (OSError, UnicodeDecodeError, IndexError):
        return ""
    return "" if limit == "max" or not limit.isdigit() else f"{int(limit) / 2**30:.1f} GiB (cgroup memory.max)"

"""The workspaces of a batch as the trusted side reads them: katas and seed from the roster, every kata file
read by this process (links leaving the workspace and anything but a regular file refused), and what the
manifest says compared with the roster. Nothing here runs candidate code.
"""

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from checker.engine import catalog
from checker.engine.catalog import MANIFEST
from checker.hiring import roster as rostering
from checker.present import escape
from checker.sandbox import read_learner_file


class GradeError(Exception):
    """A folder that cannot be graded, or a batch that cannot go on (one line for the user)."""


MANIFEST_BYTES = 64 * 1024


@dataclass(frozen=True)
class Workspace:
    """A candidate's folder, the katas to grade in it, the seed of their hidden tests, and what the
    grader read of it: {kata id: (bytes or None, sha256 or None, why it was refused or "")}."""

    path: Path  # as the user wrote it
    katas: tuple  # catalog.Kata, in id order
    seed: int
    files: dict = field(default_factory=dict, compare=False, hash=False)
    flags: tuple = ()  # for a human: unrostered, a manifest that disagrees, a refused file
    error: str = ""  # why the workspace cannot be graded at all ("": it can)
    record: dict | None = field(default=None, compare=False, hash=False)  # its roster entry, as `kata pack` wrote it
    mtimes: dict = field(default_factory=dict, compare=False, hash=False)  # kata id -> the file's mtime (its owner's)

    @property
    def key(self):
        """What the state file knows a finished workspace by: a changed file is a new key."""
        hashes = tuple(self.files.get(kata.id, (None, None, ""))[1] for kata in self.katas)
        return str(self.path.resolve()), self.seed, tuple(kata.id for kata in self.katas), hashes


def _manifest(folder):
    """The folder's kata-pack.json as {"katas", "seed", "pack", "seal"}, None without one; ValueError for a
    broken one."""
    path = folder / MANIFEST
    if not os.path.lexists(path):
        return None
    try:
        data = json.loads(read_learner_file(path, MANIFEST_BYTES))
        katas, seed = [catalog.find(key) for key in data["katas"]], int(data["seed"])
    except (OSError, ValueError, KeyError, TypeError, ArithmeticError, RecursionError, catalog.UnknownKata) as error:
        raise ValueError(f"{MANIFEST} is not a kata pack manifest ({type(error).__name__}: {error})") from None
    if not katas:
        raise ValueError(f"{MANIFEST} lists no kata")
    return {"katas": tuple(sorted(set(katas), key=lambda kata: kata.id)), "seed": seed,
            "pack": data.get("pack"), "seal": data.get("seal"), "raw": data if isinstance(data, dict) else {}}


COMPARED = ("katas", "seed", "minutes", "kata_version", "allow")  # manifest fields the roster also records


def disagreements(manifest, record):
    """A flag for each manifest field that disagrees with the roster record (the candidate edited it)."""
    raw = manifest.get("raw") or {}
    flags = []
    for name in COMPARED:
        if name not in record and name not in raw:
            continue
        said, issued = raw.get(name), record.get(name)
        if name == "katas":
            said = _ids_of(said)
            issued = _ids_of(issued)
        if said != issued:
            flags.append(f"{MANIFEST} disagrees with the roster: {name} {_shown(said)} (issued: {_shown(issued)}): "
                         "graded as issued")
    return flags


def _ids_of(keys):
    try:
        return ",".join(sorted({catalog.find(str(key)).id for key in keys}))
    except (TypeError, catalog.UnknownKata):
        return repr(keys)[:80]


def _shown(value):
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 80 else text[:80] + "…"


def _issued(entry):
    """(katas, seed) a roster entry records, or None for an entry that names no known kata."""
    try:
        katas = tuple(sorted({catalog.find(key) for key in entry["katas"]}, key=lambda kata: kata.id))
        return (katas, int(entry["seed"])) if katas else None
    except (KeyError, TypeError, ValueError, catalog.UnknownKata):
        return None


def open_workspace(folder, seed=None, roster=None, unpacked=Path("kata-grade.unzipped")):
    """The workspace in `folder`, read by this process: its katas and seed from its roster record (found by
    the pack id of its manifest: roster.match), else from its manifest, else every kata file in its katas/
    with the default seed, flagged either way; `seed` overrides. A folder that does not exist raises
    GradeError; a .zip is unpacked safely under `unpacked` first (returned.py), and a folder holding only the
    workspace's folder (`unzip X.zip -d returned/X`) is graded as that one. One that cannot be graded (no katas/, a broken manifest, anything reading it raised) comes
    back with `error` set: one error row, never a stopped batch."""
    from checker.engine.runner import DEFAULT_SEED

    from checker.hiring import returned

    folder, notes = Path(folder), []
    if folder.suffix.lower() == ".zip" and not folder.is_dir():
        try:
            inside = returned.unpack(folder, unpacked)
        except returned.ZipRefused as refused:
            return Workspace(folder, (), DEFAULT_SEED if seed is None else seed,
                             error=f"{refused}: {returned.EXPECTED}")
        notes.append(f"{returned.UNPACKED}{folder} by the grader (into {inside})")
        folder = inside
    if not folder.is_dir():
        raise GradeError(f"no such folder: {folder}")
    inner = returned.one_level_down(folder)
    if inner is not None:
        notes.append(f"{returned.ONE_DOWN}: {folder} holds only {inner.name}/, graded as the workspace")
        folder = inner
    try:
        opened = _open(folder, seed, roster)
        return dataclasses.replace(opened, flags=opened.flags + tuple(notes)) if notes else opened
    except Exception as error:  # noqa: BLE001 - whatever the folder holds, it is one workspace's error row
        return Workspace(folder, (), DEFAULT_SEED if seed is None else seed,
                         error=f"the grader could not read it: {type(error).__name__}: {error}")


def _open(folder, seed, roster):
    from checker.hiring import returned
    from checker.engine.runner import DEFAULT_SEED

    error = ""
    try:
        manifest = _manifest(folder)
    except ValueError as problem:
        manifest, error = None, str(problem)
    found = rostering.match(folder, manifest, roster, broken=bool(error))
    flags, record = list(found.flags), found.entry
    issued = _issued(record) if record else None
    if record and issued is None:
        flags.append("UNMATCHED: its roster record names no known kata: graded on its own files")
        record = None
    if issued is not None:
        katas, pack_seed = issued
        if error:
            flags.append(f"{error}; graded on the roster's katas and seed")
            error = ""
        elif manifest is not None:
            flags += disagreements(manifest, record)
    elif manifest is not None:
        katas, pack_seed = manifest["katas"], manifest["seed"]
    else:
        katas = tuple(kata for kata in catalog.all_katas() if os.path.lexists(folder / "katas" / kata.filename))
        pack_seed = DEFAULT_SEED
        if not katas and not error:
            error = f"{folder}/katas holds no kata file (01_scores.py, ...)"
    if not os.path.isdir(folder / "katas"):
        error = f"{folder} has no katas/ folder: not a candidate's workspace; {returned.EXPECTED}"
    if error:
        known = issued[1] if issued is not None else DEFAULT_SEED
        return Workspace(folder, (), known if seed is None else seed, {}, tuple(flags), error, record)
    files = {kata.id: read_kata_file(folder, kata) for kata in katas}
    mtimes = {kata.id: _mtime(folder / "katas" / kata.filename) for kata in katas if files[kata.id][0] is not None}
    mtimes = {kata_id: mtime for kata_id, mtime in mtimes.items() if mtime is not None}
    flags += [f"refused katas/{catalog.find(kata_id).filename}: {why}" for kata_id, (_, _, why) in files.items()
              if why and "no such file" not in why]
    flags += [f"katas/{catalog.find(kata_id).filename} has a modification time out of range ({mtime:.0f} s since "
              "1970): shown as unknown" for kata_id, mtime in mtimes.items() if not in_range(mtime)]
    return Workspace(folder, katas, pack_seed if seed is None else seed, files, tuple(flags), "", record, mtimes)


def flag_shared_records(workspaces):
    """The workspaces, each of those matched to a record another one was matched to flagged: one of them is
    not the candidate the pack was issued to."""
    shared = rostering.claimed_twice([workspace.record for workspace in workspaces])
    out = list(workspaces)
    for pack_id, indexes in shared.items():
        for index in indexes:
            others = ", ".join(str(workspaces[i].path) for i in indexes if i != index)
            flag = (f"SHARED RECORD: pack {pack_id} ({workspaces[index].record.get('folder')}) is also claimed by "
                    f"{others}: one of them is not the candidate it was issued to")
            out[index] = dataclasses.replace(out[index], flags=(flag,) + out[index].flags)
    return out


def _mtime(path):
    """The file's own modification time (a link's, not its target's), None if it cannot be read."""
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return None


def in_range(seconds):
    """Whether a modification time is one a date can show (a tmpfs file can claim the year 33658)."""
    import datetime

    try:
        datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    except (ValueError, OverflowError, OSError):
        return False
    return True


def _ids(katas):
    return ",".join(kata.id for kata in katas) or "none"


LINK_CHARS = 100  # of a refused link's target shown: it is the candidate's text, and must not read as rows


def _shown(target):
    """A refused link's target as one short run of text: hidden characters and newlines shown by code
    point, runs of blanks one space, cut to LINK_CHARS, so it cannot wrap into lines that read as the
    grader's."""
    return escape.cut(" ".join(escape.visible(str(target)).split()), LINK_CHARS)


def read_kata_file(folder, kata):
    """(bytes, sha256, "") of the kata's file, or (None, None, why) for one that must not be graded: a link
    leaving the workspace, not a regular file (a FIFO would hang the reader), too large, missing."""
    path = folder / "katas" / kata.filename
    if not os.path.lexists(path):
        return None, None, f"no such file: the workspace lost the stub"
    try:
        target = Path(os.path.realpath(path))  # a loop stays a path, and fails to open below
    except RecursionError:  # thousands of links in a chain (the kernel follows 40)
        return None, None, "a chain of links too long to follow"
    if not target.is_relative_to(os.path.realpath(folder)):
        return None, None, f"a link leaving the workspace (to {_shown(target)})"
    try:
        data = read_learner_file(target)
    except (OSError, ValueError) as error:
        return None, None, getattr(error, "strerror", None) or str(error)
    return data, hashlib.sha256(data).hexdigest(), ""


def files_digest(workspace):
    """One SHA-256 of a workspace's kata files as read (what tells a hand-in graded again from another)."""
    text = json.dumps(sorted((kata_id, read[1]) for kata_id, read in workspace.files.items()))
    return hashlib.sha256(text.encode()).hexdigest()

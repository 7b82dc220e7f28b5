"""The roster: what `kata pack` issued, on the team's side, and how a workspace finds its record wherever it went.

`kata pack` appends one JSON line per pack to `kata-roster.jsonl` beside the pack (the folder written
relative to the roster, so the round can be copied whole) and gives the pack a random id. The pack's
manifest carries that id and a seal: an HMAC-SHA-256, with the team's key (`kata-roster.key`, beside the
roster, mode 600, never in a pack), of the id and the issued stubs' digests. `kata grade` finds a
workspace's record by the id its manifest holds, wherever the workspace now is (a copied round, zips
unpacked into `returned/`, a git clone), and trusts it only if the seal is the one the key makes: a
candidate cannot invent an id, and taking another's manifest makes two workspaces claim one record,
which is flagged. A workspace whose record cannot be found is graded on its own manifest, loudly flagged.

A roster and its key are the team's, never the candidate's: a returned zip may carry its own
`kata-roster.jsonl` and key, unpacked beside the workspaces. So a roster found beside a workspace or in
the current folder is used only if its key is one `kata pack` made or used on this machine (its
fingerprint is kept in the user's own `kata/team-keys`, under $KATA_STATE_HOME or ~/.local/state);
`--roster PATH` is the team's word for any other (a round copied to another machine). And a pack id
is remembered across batches (`remember`: beside the grade state file, signed with its key): one graded
again from another folder in a later batch is a shared record there.
"""

import datetime
import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from checker import __version__
from checker.engine.catalog import ROSTER
from checker.sandbox import read_learner_file

KEY = "kata-roster.key"  # the team's key, beside the roster
ROSTER_BYTES = 64 * 2**20


def team_key(folder):
    """The key in `folder` that seals the packs recorded there, made on first use, and known from then on
    as this machine's team's (trusted_keys)."""
    key = private_key(Path(folder) / KEY)
    fingerprint = _fingerprint(key)
    if fingerprint not in trusted_keys():
        place = _keys_file()
        place.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with place.open("a", encoding="utf-8") as sink:
            sink.write(fingerprint + "\n")
    return key


def _keys_file():
    home = os.environ.get("KATA_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state", "kata")
    return Path(home) / "team-keys"


def _fingerprint(key):
    return hashlib.sha256(b"kata team key\n" + key).hexdigest()


def trusted_keys():
    """The fingerprints of the team keys `kata pack` made or used here: what a roster found (not named by
    --roster) must be sealed with."""
    try:
        return set(_keys_file().read_text(encoding="ascii", errors="replace").split())
    except OSError:
        return set()


def private_key(path):
    """The 32-byte key in `path`, made on first use, readable by this user only (and by no sandbox)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return Path(path).read_bytes()
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as sink:
        sink.write(key)
    return key


def seal(key, pack_id, stubs):
    """The seal of pack `pack_id` whose stubs ({relative path: sha256}) were issued."""
    text = "\n".join([str(pack_id)] + [f"{name} {digest}" for name, digest in sorted(stubs.items())])
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def stub_digests(files):
    return {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in files.items()
            if name.startswith("katas/")}


def issue(folder, katas, seed, files, minutes, weights, allow=("numpy",)):
    """(pack id, seal, roster path) for the pack about to be written to `folder`, recorded in the roster
    beside it: `kata grade` trusts this record, not the manifest the candidate can edit."""
    folder = Path(folder)
    home = folder.resolve().parent
    pack_id, stubs = secrets.token_hex(8), stub_digests(files)
    entry = {"pack": pack_id, "folder": folder.resolve().name, "katas": [kata.id for kata in katas], "seed": seed,
             "kata_version": __version__,
             "made": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "minutes": minutes, "allow": list(allow), "weights": weights, "stubs": stubs}
    sealed = seal(team_key(home), pack_id, stubs)
    roster = home / ROSTER
    with roster.open("a", encoding="utf-8") as sink:
        sink.write(json.dumps(entry) + "\n")
        sink.flush()
        os.fsync(sink.fileno())
    return pack_id, sealed, roster


# --- finding a workspace's record ------------------------------------------------------------------

@dataclass
class Roster:
    path: Path
    entries: list  # the roster's entries, in the order recorded
    key: bytes | None  # None: no key beside it (seals cannot be verified)
    ignored: int = 0  # lines that are not entries

    @property
    def teams(self):
        """Whether its key is one `kata pack` made or used on this machine."""
        return self.key is not None and _fingerprint(self.key) in trusted_keys()

    def by_pack(self, pack_id):
        return next((entry for entry in reversed(self.entries) if entry.get("pack") == pack_id), None)

    def by_folder(self, folder):
        """The last entry recorded for `folder` where it is now (relative to the roster; an older roster's
        absolute path too), or None."""
        folder = Path(folder).resolve()
        for entry in reversed(self.entries):
            recorded = Path(str(entry.get("folder", "")))
            if (self.path.parent / recorded).resolve() == folder:
                return entry
        return None


_LOADED = {}


def load(path):
    """The roster at `path`, or None where there is none (read once per batch)."""
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        return None
    cached = _LOADED.get(path.resolve())
    if cached and cached[0] == (stat.st_mtime_ns, stat.st_size):
        return cached[1]
    try:
        lines = read_learner_file(path, ROSTER_BYTES).decode("utf-8", errors="replace").splitlines()
    except (OSError, ValueError):
        return None
    entries, ignored = [], 0
    for line in lines:
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict) or not isinstance(entry.get("katas"), list):
                raise ValueError
            entries.append(entry)
        except ValueError:
            ignored += bool(line.strip())
    key_path = path.parent / KEY
    try:
        key = read_learner_file(key_path, 4096) if key_path.is_file() else None
    except (OSError, ValueError):
        key = None
    found = Roster(path, entries, key, ignored)
    _LOADED[path.resolve()] = ((stat.st_mtime_ns, stat.st_size), found)
    return found


def locate(folder, roster=None):
    """(the roster to look in for `folder`'s record, the rosters passed over): `roster` as given, else the
    one beside the folder, else the one in the current folder, each only if it is the team's (its key one
    `kata pack` made or used here: never one a returned zip brought along); (None, ...) when there is none."""
    if roster:
        return load(roster), []
    folder = Path(folder)
    beside = folder.parent if folder.name not in ("", ".", "..") else folder.resolve().parent
    passed = []
    for place in (beside, Path(".")):
        found = load(place / ROSTER)
        if found is not None and found.teams:
            return found, passed
        if found is not None and found.path.resolve() not in [p.resolve() for p in passed]:
            passed.append(found.path)
    return None, passed


@dataclass
class Match:
    """A workspace's record, or why there is none: `entry` None means graded on its own manifest."""

    entry: dict | None
    flags: list = field(default_factory=list)


def match(folder, manifest, roster=None, broken=False):
    """The record of the workspace in `folder` whose manifest (a dict, or None: missing, or `broken`) holds
    its pack id and seal."""
    found, passed = locate(folder, roster)
    if found is None:
        where = roster or f"{ROSTER} beside it or here"
        if passed:
            return Match(None, [f"UNMATCHED: {_shown(passed[0])} is not the team's roster (its key is not one "
                                "`kata pack` made here: a roster that came with the returned files?); not used. "
                                "--roster PATH names the team's: graded on its own kata-pack.json, without the "
                                "team's rubric or time"])
        return Match(None, [f"UNMATCHED: no roster found ({where}; --roster PATH names it): graded on "
                            "its own kata-pack.json, without the team's rubric or time"])
    pack_id = (manifest or {}).get("pack")
    what = ("kata-pack.json is unreadable" if broken else "kata-pack.json is missing" if manifest is None
            else "kata-pack.json holds no pack id")
    if pack_id is None:
        entry = found.by_folder(folder)
        if entry is None:
            return Match(None, [f"UNMATCHED: {what} and {found.path} has no record of this folder: graded on its "
                                "own files, without the team's rubric or time; not comparable with the others"])
        return Match(entry, [f"{what}: matched to the roster by its folder ({entry.get('folder')})"])
    entry = found.by_pack(str(pack_id))
    if entry is None:
        return Match(None, [f"UNMATCHED: pack id {str(pack_id)[:40]!r} is not in {found.path}: graded on its own "
                            "kata-pack.json, without the team's rubric or time; not comparable with the others"])
    if found.key is None:
        return Match(entry, [f"no team key ({KEY}) beside {found.path}: the pack id was not verified"])
    if not hmac.compare_digest(seal(found.key, entry["pack"], entry.get("stubs") or {}),
                               str((manifest or {}).get("seal", ""))):
        return Match(None, [f"UNMATCHED: kata-pack.json claims pack {entry['pack']} ({entry.get('folder')}) but "
                            "its seal is not the one the team's key made: a forged or altered manifest; graded on "
                            "its own kata-pack.json, not comparable with the others"])
    return Match(entry)


def _shown(path):
    from checker.present import escape

    return escape.cut(" ".join(escape.visible(str(path)).split()), 100)


def claimed_twice(records):
    """{pack id: [indexes]} of the pack ids more than one workspace of a batch was matched to."""
    seen = {}
    for index, entry in enumerate(records):
        if entry and entry.get("pack"):
            seen.setdefault(entry["pack"], []).append(index)
    return {pack_id: indexes for pack_id, indexes in seen.items() if len(indexes) > 1}


def remember(ledger, key, workspaces, resume):
    """Flags ({index: flag}) for the workspaces ([(roster entry, folder, digest of its files)]) whose pack id
    an earlier batch graded from another folder and other files, by the pack ids `ledger` (beside the state file, its lines signed with the
    state's `key`) remembers; this batch's added. `resume`: the batch the ledger names goes on."""
    batch, seen = None, {}
    try:
        lines = read_learner_file(ledger, ROSTER_BYTES).decode("utf-8", errors="replace").splitlines()
    except (OSError, ValueError):
        lines = []
    for line in lines:
        try:
            signed = json.loads(line)
            if hmac.compare_digest(_mac(key, signed["entry"]), str(signed["mac"])):
                batch, seen = signed["entry"]["batch"], dict(signed["entry"]["seen"])
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    batch = batch if resume and batch else secrets.token_hex(8)
    flags = seen_before(seen, workspaces, batch)
    entry = {"batch": batch, "seen": seen}
    partial = ledger.with_name(ledger.name + ".tmp")
    partial.write_text(json.dumps({"entry": entry, "mac": _mac(key, entry)}) + "\n", encoding="utf-8")
    os.replace(partial, ledger)
    return flags


def _mac(key, entry):
    return hmac.new(key, json.dumps(entry, sort_keys=True).encode(), hashlib.sha256).hexdigest()


def seen_before(seen, workspaces, batch):
    """Flags ({index: flag}) for the workspaces ([(roster entry or None, folder, digest of its files)]) whose
    pack id an earlier batch graded: `seen` ({pack id: {"path", "files", "batch", "when"}}) is updated with
    this batch's. The same folder, or the same files elsewhere (a round copied, a zip unpacked), is the same
    hand-in graded again, not a concern; other files under that id are a second hand-in claiming it, and the
    record stays the first claimant's (that hand-in moved later is still not a concern)."""
    flags = {}
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    for index, (entry, folder, files) in enumerate(workspaces):
        pack_id = (entry or {}).get("pack")
        if not pack_id:
            continue
        path = str(Path(folder).resolve())
        earlier = seen.get(pack_id)
        if earlier and earlier.get("batch") != batch and path != earlier.get("path") and files != earlier.get("files"):
            flags[index] = (f"SHARED RECORD: pack {pack_id} was graded in an earlier batch ({earlier.get('when')}) "
                            f"from {_shown(earlier.get('path'))}, with other files: two hand-ins claim one record")
        if not earlier or (earlier.get("batch") != batch and index not in flags):  # the first claimant stays
            seen[pack_id] = {"path": path, "files": files, "batch": batch, "when": now}
    return flags

"""What candidates hand back, found where it is: a returned zip unpacked safely, a workspace one folder down.

`unzip X.zip -d returned/X` nests the candidate's folder one level down, and teams hand `kata grade` the
zips themselves. A zip is unpacked by this process into a folder of the grader's own (beside the state
file), member by member: no absolute path or `..`, no link, no device, at most ZIP_MEMBERS members and
ZIP_BYTES bytes in all, counted as they are written (a member's stated size is the candidate's word).
"""

import hashlib
import os
import shutil
import stat
import time
import zipfile
from pathlib import Path, PurePosixPath

from checker.engine.catalog import MANIFEST

ZIP_MEMBERS = 500  # a pack is a dozen files
ZIP_BYTES = 64 * 2**20  # in all, uncompressed
ZIP_READ = 256 * 2**20  # of the zip file itself
EXPECTED = (f"expected a candidate's folder as `kata pack` wrote it ({MANIFEST} and katas/), or a folder holding "
            "exactly one such folder, or a .zip of one")


UNPACKED, ONE_DOWN = "unpacked from ", "found one level down"  # how a workspace's flags say where it was found


class ZipRefused(ValueError):
    """A returned zip that is not unpacked (the message says why, in one line)."""


def one_level_down(folder):
    """The single folder inside `folder` holding a kata-pack.json, when `folder` itself holds neither a
    manifest nor katas/ (what `unzip X.zip -d returned/X` makes); else None."""
    folder = Path(folder)
    if os.path.lexists(folder / MANIFEST) or os.path.lexists(folder / "katas"):
        return None
    try:
        inner = [entry for entry in os.scandir(folder) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return None
    if len(inner) != 1 or not os.path.lexists(Path(inner[0].path) / MANIFEST):
        return None
    return Path(inner[0].path)


def unpack(zip_path, into):
    """Unpack `zip_path` into a fresh folder under `into` (named after the zip and its digest, so the same zip
    is the same workspace on --resume); ZipRefused for a zip that cannot be unpacked safely."""
    zip_path = Path(zip_path)
    try:
        if not zip_path.is_file() or zip_path.is_symlink():
            raise ZipRefused(f"{zip_path} is not a regular file")
        if zip_path.stat().st_size > ZIP_READ:
            raise ZipRefused(f"{zip_path} is larger than {ZIP_READ // 2**20} MiB")
        digest = hashlib.sha256(zip_path.read_bytes()).hexdigest()[:12]
        target = Path(into) / f"{zip_path.stem[:60]}-{digest}"
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True, mode=0o700)
        with zipfile.ZipFile(zip_path) as archive:
            _extract(archive, target)
    except ZipRefused:
        raise
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, NotImplementedError, EOFError) as error:
        raise ZipRefused(f"{zip_path} could not be unpacked ({type(error).__name__}: {error})") from None
    return one_level_down(target) or target


def _extract(archive, target):
    members = archive.infolist()
    if len(members) > ZIP_MEMBERS:
        raise ZipRefused(f"the zip holds {len(members):,} members, more than {ZIP_MEMBERS} (a pack is a dozen files)")
    written = 0
    for member in members:
        name = PurePosixPath(member.filename.replace("\\", "/"))
        if name.is_absolute() or ".." in name.parts or not name.parts or ":" in member.filename:
            raise ZipRefused(f"the zip's member {member.filename[:80]!r} points outside the folder")
        mode = member.external_attr >> 16
        if mode and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise ZipRefused(f"the zip's member {member.filename[:80]!r} is a link or a device, not a file")
        path = target.joinpath(*name.parts)
        if member.is_dir():
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
            continue
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with archive.open(member) as source, open(path, "xb") as sink:
            while chunk := source.read(1 << 16):
                written += len(chunk)
                if written > ZIP_BYTES:
                    raise ZipRefused(f"the zip unpacks to more than {ZIP_BYTES // 2**20} MiB")
                sink.write(chunk)
        os.chmod(path, 0o600)
        try:  # the zip's time of the file (local time, as zip keeps it): the candidate's clock, as a mtime is
            stamp = time.mktime(member.date_time + (0, 0, -1))
            os.utime(path, (stamp, stamp))
        except (OverflowError, ValueError, OSError):
            pass

"""What the parent reads before a child starts: the learner's file (bounded, a regular file only), which front-end
it needs, and where the child's output goes (parent side; standard library only)."""

import os
import stat
import sys
import tempfile

MAX_FILE_BYTES = 1_000_000  # a kata file is a few kB; the parent reads no more than this of one


def read_learner_file(path, limit=MAX_FILE_BYTES):
    """The bytes of a learner's file, read by the parent: a regular file only (never a FIFO, device or
    folder: those could hang or flood the reader), at most `limit` bytes. Raises OSError or ValueError."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path} is not a regular file")
        if info.st_size > limit:
            raise ValueError(f"{path} holds {info.st_size:,} bytes, more than a kata file's {limit:,}")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ValueError(f"{path} grew past {limit:,} bytes while read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _frontend(data):
    """"torch" for a file that imports torch (and "torch-missing" where torch is not installed), else "numpy"."""
    if b"torch" not in data:  # the common case, without tokenizing
        return "numpy"
    import importlib.util

    from checker.sandbox.torch_bridge import imports_torch

    if not imports_torch(data):
        return "numpy"
    return "torch" if importlib.util.find_spec("torch") else "torch-missing"



def _output_file():
    """Where the child's output goes: a file in memory (Linux), else an unnamed temporary one."""
    if hasattr(os, "memfd_create"):
        return os.fdopen(os.memfd_create("kata-output", os.MFD_CLOEXEC), "w+b")
    return tempfile.TemporaryFile()


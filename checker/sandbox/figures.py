"""The kernel's figures about a child, read by the parent (Linux): its CPU clock and its peak resident memory.

Both are the kernel's account of the whole thread group, whatever the child's code does: the process CPU clock
sums every thread it ever ran (exited ones included), and the peak (`VmHWM`) is its memory map's, which every
thread shares, read through any live thread when the group's leader has exited. The baseline is taken at hello,
before any learner code ran, with the peak first reset to what the child holds then (`reset_peak`): nothing held
and freed before it is headroom. The child cannot reset it itself (`/proc` is outside its Landlock rules). Where a
figure cannot be read, the caller gets None and fails closed (`FigureUnreadable`).
"""

import os
import sys
import time


def cpu_seconds(pid):
    """The CPU time of process `pid`, all its threads (exited ones too), from its kernel clock; None where there is none."""
    if sys.platform != "linux":
        return None
    try:
        return time.clock_gettime_ns((~pid << 3) | 2) / 1e9  # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
    except OSError:
        return None


def status_bytes(pid, field):
    """A memory figure of /proc/<pid>/status (`VmHWM`: the most resident memory it has held; `VmRSS`), or None. A
    group whose leader has exited shows no memory figures for it: any live thread's are the group's (one memory map)."""
    for task in _tasks(pid):
        value = _field(f"/proc/{pid}/task/{task}/status", field)
        if value is not None:
            return value
    return None


def reset_peak(pid):
    """Reset the child's peak to what it holds now (clear_refs 5: the kernel's own reset); whether it took."""
    try:
        fd = os.open(f"/proc/{pid}/clear_refs", os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.write(fd, b"5") == 1
    except OSError:
        return False
    finally:
        os.close(fd)


def _tasks(pid, limit=4096):
    """The leader first, then the other threads of `pid` (at most `limit`: the child's thread count is bounded)."""
    yield pid
    try:
        with os.scandir(f"/proc/{pid}/task") as entries:
            for count, entry in enumerate(entries):
                if count >= limit:
                    return
                if entry.name.isdigit() and int(entry.name) != pid:
                    yield int(entry.name)
    except OSError:
        return


def _field(path, field):
    try:
        with open(path, "rb") as status:
            line = next(line for line in status.read(1 << 16).splitlines() if line.startswith(field.encode() + b":"))
        return int(line.split()[1]) * 1024
    except (OSError, StopIteration, ValueError, IndexError):
        return None

"""The kernel's figures about a child, read by the parent: its CPU clock and its peak resident memory (Linux)."""

import sys
import time


def _cpu_seconds(pid):
    """The CPU time of process `pid`, all its threads, from its kernel clock; None where there is none."""
    if sys.platform != "linux":
        return None
    try:
        return time.clock_gettime_ns((~pid << 3) | 2) / 1e9  # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
    except OSError:
        return None


def _status_bytes(pid, field):
    """A memory figure of /proc/<pid>/status (`VmHWM`: the most resident memory it has held), or None."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            line = next(line for line in status.read(1 << 16).splitlines() if line.startswith(field.encode() + b":"))
        return int(line.split()[1]) * 1024
    except (OSError, StopIteration, ValueError, IndexError):
        return None

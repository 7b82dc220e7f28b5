"""Run a learner's file in a child process with a time limit and a memory limit.

The parent only ever receives plain arrays, numbers, strings and handles (see `wire.py`), and
compares them itself, so nothing the learner's file does in the child (patching NumPy, exiting,
printing a fake report, looping forever) can make a check pass or break the parent's output.

The parent reads the learner's file itself, keeps its bytes for every later need, and sends them to the
child on its pipe. The child walls itself in before it runs a line of it (`isolation.py`): a tmpfs of its
own mount namespace is its only writable place (bounded, seen by nobody else, gone with it), no network,
no process of its own, reads only of the Python runtime, NumPy and that tmpfs, no signal out. Its first
message says which walls stand (`Sandbox.isolation`). The parent never opens a path the child can change;
the figures that decide a cost check (`measure`) it reads from the kernel about the child.

This module imports no NumPy at start-up: the child is launched first, so the two processes load
NumPy at the same time. Where many checks run in one process, `warm.enable()` has every child forked
from a warm zygote instead (`warm.py`, `zygote.py`): the same walls, without the interpreter's start.
"""

from checker.sandbox.box import CHILD, Sandbox
from checker.sandbox.errors import (CHILD_ENV, CPU_GRACE_SECONDS, DEFAULT_SECONDS, DISK_BYTES, OUTPUT_LIMIT, Died,
                                    FigureUnreadable, HostError, LearnerError, Limits, SandboxError, Timeout, Unisolated)
from checker.sandbox.files import MAX_FILE_BYTES, read_learner_file

__all__ = ["CHILD", "CHILD_ENV", "CPU_GRACE_SECONDS", "DEFAULT_SECONDS", "DISK_BYTES", "MAX_FILE_BYTES", "OUTPUT_LIMIT",
           "Died", "FigureUnreadable", "HostError", "LearnerError", "Limits", "Sandbox", "SandboxError", "Timeout", "Unisolated",
           "read_learner_file"]

"""Warm starts (parent side): learners' processes forked from a zygote (`zygote.py`) instead of started.

A check then costs a fork of a process that has NumPy loaded, not an interpreter start and a NumPy import.
Where many checks run in one process (the project's tests, each `kata grade` worker, `kata watch` and
`kata mock`) it calls `enable()`; every later `Sandbox` of that process forks its child from one zygote,
started on first use with the child's minimal environment and nothing else of this process. A process
forked from this one (a grade worker) starts its own. A lone `kata check` starts its child plainly.

The forked child walls itself in exactly as a started one does (the same `worker.main`, after the same
`enter_namespaces`), and the parent sees it as a `Forked`: its pid (its process group's, to kill) and its
status, which the zygote sends on a pipe and keeps the zombie until the parent has read it.
"""

import atexit
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

ZYGOTE = Path(__file__).with_name("zygote.py")
STATUS = struct.Struct("=id")  # zygote.STATUS: returncode, CPU seconds
START_SECONDS = 30  # for the zygote to load NumPy on a busy machine
ANSWER_SECONDS = 10  # for it to fork


class ZygoteError(OSError):
    """The zygote could not fork a child: the sandbox starts one plainly instead."""


class Zygote:
    """One zygote process, and the socket this process asks it on (one request at a time)."""

    def __init__(self, env):
        """`env`: the zygote's whole environment, which every child inherits (the child's minimal one)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-B", str(ZYGOTE), str(theirs.fileno()), str(os.getpid())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd="/", env=dict(env), start_new_session=True)
        finally:
            theirs.close()
        self.owner = os.getpid()
        self._socket = ours
        self._lock = threading.Lock()
        self._ready = False

    @property
    def alive(self):
        return self._socket.fileno() >= 0 and self.process.poll() is None

    def spawn(self, argv, env, cwd, fds):
        """Fork a learner's process: `child.py`'s arguments after its two fds, its environment and folder,
        and `fds` (request pipe, reply pipe, output file), which become its own. Returns a `Forked`."""
        status_read, status_write = os.pipe()
        try:
            with self._lock:
                if not self._ready:
                    self._answer(START_SECONDS)
                    self._ready = True
                request = json.dumps({"argv": list(argv), "env": env, "cwd": cwd}).encode()
                socket.send_fds(self._socket, [request], [*fds, status_write])
                pid = self._answer(ANSWER_SECONDS)["pid"]
        except BaseException:
            os.close(status_read)
            raise
        finally:
            os.close(status_write)
        return Forked(self, pid, status_read)

    def _answer(self, seconds):
        ready, _, _ = select.select([self._socket], [], [], seconds)
        if not ready:
            raise ZygoteError(f"the zygote gave no answer within {seconds} s")
        message = self._socket.recv(1 << 16)
        if not message:
            raise ZygoteError("the zygote has ended")
        answer = json.loads(message)
        if "error" in answer:
            raise ZygoteError(f"the zygote could not fork: {answer['error']}")
        return answer

    def release(self, pid):
        """The parent has `pid`'s status: the zygote may reap it."""
        with self._lock:
            try:
                self._socket.send(json.dumps({"release": pid}).encode())
            except OSError:
                pass  # it has ended: nothing left to reap

    def close(self):
        """End the zygote (it kills any child left) and wait for it."""
        self._socket.close()
        if self.owner == os.getpid():
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Forked:
    """A learner's process forked by a zygote, as `subprocess.Popen` shows one: pid, poll, wait, kill."""

    def __init__(self, zygote, pid, status):
        self.args = [str(ZYGOTE), str(pid)]
        self.pid = pid
        self.returncode = None
        self.cpu_seconds = None  # what it used, once it has ended
        self._zygote = zygote
        self._status = status  # the pipe the zygote writes the status on

    def poll(self):
        return self._collect(0)

    def wait(self, timeout=None):
        code = self._collect(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout)
        return code

    def kill(self):
        if self.returncode is None:  # still unreaped: the pid is still this child's
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _collect(self, timeout):
        if self.returncode is None:
            ready, _, _ = select.select([self._status], [], [], timeout)
            if not ready:
                return None
            data = os.read(self._status, STATUS.size)
            os.close(self._status)
            if len(data) == STATUS.size:
                self.returncode, cpu = STATUS.unpack(data)
                self.cpu_seconds = cpu if cpu >= 0 else None
                self._zygote.release(self.pid)
            else:  # the zygote ended without a word (killed?): make sure its child did too
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except OSError:
                    pass
                self.returncode = -signal.SIGKILL
        return self.returncode


# --- this process's zygote -------------------------------------------------------------------------

_lock = threading.Lock()
_enabled = None  # the environment to start zygotes with, once enable() is called
_zygote = None
_failures = 0
GIVE_UP_AFTER = 3  # zygotes that failed in this process: then it starts its children plainly


def enable(env=None):
    """Fork every later sandbox of this process from a zygote (started now, so it warms up while the caller
    goes on). `env`: the children's base environment (default: the sandbox's)."""
    global _enabled
    if env is None:
        from checker.sandbox import CHILD_ENV

        env = CHILD_ENV
    with _lock:
        if _enabled is None:
            atexit.register(disable)  # wait for the zygote at exit (without it, it ends at once on its own)
        _enabled = dict(env)
    current()


def disable():
    """Start children plainly again, and end this process's zygote."""
    global _enabled, _zygote
    with _lock:
        _enabled, zygote, _zygote = None, _zygote, None
    if zygote is not None:
        zygote.close()


def current():
    """This process's zygote (started if need be), or None: not enabled, not Linux, or failing."""
    global _zygote
    if _enabled is None or not hasattr(os, "pidfd_open"):
        return None
    with _lock:
        if _zygote is not None and not _zygote.alive:
            _zygote = None
        if _zygote is None and _failures < GIVE_UP_AFTER:
            try:
                _zygote = Zygote(_enabled)
            except OSError:
                failed()
        return _zygote


def failed(zygote=None):
    """A zygote could not fork: drop it (the next sandbox starts another, until GIVE_UP_AFTER)."""
    global _zygote, _failures
    _failures += 1
    if zygote is not None and zygote is _zygote:
        _zygote = None
        zygote.close()


def _forget_in_child():
    """In a process forked from this one: the zygote is the parent's (its socket is closed here, so the
    zygote still serves the parent); this process starts its own when it first needs one."""
    global _lock, _zygote
    _lock = threading.Lock()
    if _zygote is not None:
        _zygote._socket.close()
        _zygote = None


os.register_at_fork(after_in_child=_forget_in_child)

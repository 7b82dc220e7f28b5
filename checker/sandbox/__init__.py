"""Run a learner's file in a child process with a time limit and a memory limit.

The parent only ever receives plain arrays, numbers, strings and handles (see `wire.py`), and
compares them itself, so nothing the learner's file does in the child (patching NumPy, exiting,
printing a fake report, looping forever) can make a check pass or break the parent's output.

The parent reads the learner's file itself and hands the child a private copy in a private folder
(deleted at `close`); the child walls itself in before it runs a line of it (`isolation.py`): no
network, no process of its own, reads only of the Python runtime, NumPy and that folder, writes only
there, no signal out. Its first message says which walls stand (`Sandbox.isolation`).

This module imports no NumPy at start-up: the child is launched first, so the two processes load
NumPy at the same time. Where many checks run in one process, `warm.enable()` has every child forked
from a warm zygote instead (`warm.py`, `zygote.py`): the same walls, without the interpreter's start.
"""

import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CHILD = Path(__file__).with_name("child.py")
# The child's whole environment: nothing of the parent's (its secrets included). One BLAS thread: the
# learner's arrays are small and the limits stay predictable.
CHILD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "LC_ALL": "C.UTF-8"}
MAX_FILE_BYTES = 1_000_000  # a kata file is a few kB; the parent reads no more than this of one
DEFAULT_SECONDS = 10.0  # what `kata check --timeout` and `kata grade --timeout` give when not told
CPU_GRACE_SECONDS = 2  # the child's CPU limit lies past the wall clock's, so the parent's timeout speaks first


@dataclass
class Limits:
    seconds: float = DEFAULT_SECONDS  # wall clock for the whole run, import included
    memory_mb: int = 1024  # on top of what Python and NumPy take
    output_bytes: int = 1_000_000  # what the learner may print
    message_bytes: int = 64 * 2**20  # the most the parent reads of one answer: far above any honest result
    strict: bool = False  # refuse to run the learner's code unless every wall of isolation.FULL stands


class SandboxError(Exception):
    """The learner's process could not give an answer."""


class Timeout(SandboxError):
    def __init__(self, message, frames=()):
        super().__init__(message)
        self.frames = list(frames)  # [line, function, code]: where the learner's code was when stopped


OUTPUT_LIMIT = "OutputLimit"  # worker.OUTPUT_LIMIT, without importing NumPy here


class Died(SandboxError):
    pass


class Unisolated(SandboxError):
    """Strict mode, and the child could not wall itself in: the learner's code was never run."""


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


@dataclass
class LearnerError(Exception):
    """The learner's code raised: its type, message and the lines of the learner's file it ran through."""

    type: str
    message: str
    frames: list = field(default_factory=list)  # [line, function, code]

    def __str__(self):
        """One line, whatever the learner's code put in its exception: a message quoting it cannot add lines of
        its own (a newline shows as <U+000A>, as every hidden character does)."""
        from checker.escape import visible

        text = f"{self.type}: {self.message}" if self.message else self.type
        return visible(text)

    @property
    def not_implemented(self):
        return self.type == "NotImplementedError"


class Sandbox:
    """One child process serving calls on one learner file."""

    def __init__(self, path, limits=None, source=None, also=(), zygote=None):
        """`source`: the file's bytes, when the caller has read them (else read here); `also`: other files
        the child gets a private copy of (see `private_path`); `zygote`: a `warm.Zygote` to fork the child
        from, False for a fresh interpreter, None for this process's choice (`warm.enable`)."""
        self.path = Path(path)
        self.limits = limits or Limits()
        self.deadline = time.monotonic() + self.limits.seconds
        self.folder = Path(tempfile.mkdtemp(prefix="kata-sandbox-"))
        self._copies = {}
        self.source = b""
        self.unreadable = None  # why the learner's file could not be read, if it could not
        self.frontend = "numpy"  # or "torch": a file that imports torch gets tensors (torch_bridge.py)
        try:
            data = read_learner_file(self.path) if source is None else source
            self.source = data  # the bytes read before the child ran: what messages may quote or parse
            self.frontend = _frontend(data)
            copy = self._copy(self.path, data)
            for other in also:
                self._copy(Path(other), read_learner_file(other))
        except (OSError, ValueError) as error:
            self.unreadable = getattr(error, "strerror", None) or str(error)
            copy = self.folder / "unreadable.py"
        self._output = tempfile.TemporaryFile()
        request_read, self._request_write = os.pipe()
        self._reply_read, reply_write = os.pipe()
        argv = [str(copy), str(self.limits.memory_mb), str(int(self.limits.seconds) + CPU_GRACE_SECONDS),
                str(self.limits.output_bytes), str(self.folder), "strict" if self.limits.strict else "lenient"]
        env = {**CHILD_ENV, "TMPDIR": str(self.folder), "HOME": str(self.folder)}
        if self.frontend == "torch":
            env["KATA_FRONTEND"] = "torch"
        self.process = self._start(argv, env, request_read, reply_write, zygote)
        os.close(request_read)
        os.close(reply_write)
        self._requests = os.fdopen(self._request_write, "wb")
        self._wire = None
        self._pending = b""
        self._isolation = None
        self.claims = 0  # answers carrying figures the child measured about itself (see `measure`)

    def _start(self, argv, env, request_read, reply_write, zygote):
        """The child: forked by a zygote when there is one, else a fresh interpreter running `child.py`."""
        if zygote is None:
            warm = sys.modules.get("checker.sandbox.warm")  # not imported: nobody enabled a zygote
            zygote = warm.current() if warm else None
        if zygote:
            from checker.sandbox import warm

            try:
                return zygote.spawn(argv, env, str(self.folder), (request_read, reply_write, self._output.fileno()))
            except OSError:
                warm.failed(zygote)  # a fresh interpreter, as without one
        return subprocess.Popen(
            [sys.executable, "-I", "-B", str(CHILD), str(request_read), str(reply_write), *argv],
            pass_fds=(request_read, reply_write), stdin=subprocess.DEVNULL,
            stdout=self._output, stderr=subprocess.STDOUT, cwd=self.folder, env=env, start_new_session=True,
        )

    def _copy(self, path, data):
        copy = self.folder / path.name
        if copy in self._copies.values():
            copy = self.folder / f"{len(self._copies)}-{path.name}"
        copy.write_bytes(data)
        self._copies[str(path.resolve())] = copy
        return copy

    def private_path(self, path):
        """Where the child sees its copy of `path` (the learner's file, or one of `also`)."""
        return str(self._copies[str(Path(path).resolve())])

    @property
    def isolation(self):
        """{"applied": [walls], "missing": {wall: why}, "level": "full" | "reduced"}, as the child stood
        before any learner code ran (its first message, so the learner's code cannot have written it)."""
        if self._isolation is None:
            self._hello()
        return self._isolation

    # --- calls ---------------------------------------------------------------------------------

    def load(self, names):
        """Import the learner's file; return the names in `names` it does not define as functions."""
        if self.unreadable:
            raise SandboxError(f"the checker could not read the file: {self.unreadable}")
        if self.frontend == "torch-missing":
            from checker.sandbox.torch_bridge import INSTALL_HINT

            raise SandboxError(INSTALL_HINT)
        reply, _ = self._ask({"op": "load", "names": list(names)})
        self.signatures = reply.get("signatures") or {}
        return reply["missing"]

    def call(self, name, args=(), kwargs=None, target=None, return_args=False):
        """Call `name` in the learner's module (or on the object `target`) and return the result.

        With `return_args`, return `(result, args_after_the_call)`, to see what the call changed.
        """
        wire = self._codec()
        reply, reply_blobs = self._ask(*self._call_request("call", name, args, kwargs, target, return_args))
        try:
            result = wire.decode(reply["ok"], reply_blobs)
            return (result, wire.decode(reply["args"], reply_blobs)) if return_args else result
        except (ValueError, TypeError, KeyError, AttributeError, EOFError):
            raise self._garbage() from None

    def measure(self, name, args=(), kwargs=None, target=None, counted=()):
        """Call, counting the work done with the arguments at positions `counted` (weights).

        Returns (result, {"weight_work": multiply-adds with those weights, "peak_bytes": the most
        memory the call held at once}): deterministic measures of cost, where a stopwatch is not. They are
        counted in the learner's own process, so they are its claims (`claims` counts them).
        """
        self.claims += 1
        wire = self._codec()
        request, blobs = self._call_request("call", name, args, kwargs, target)
        request["counted"] = list(counted)
        reply, reply_blobs = self._ask(request, blobs)
        try:
            return wire.decode(reply["ok"], reply_blobs), reply["work"]
        except (ValueError, TypeError, KeyError, AttributeError, EOFError):
            raise self._garbage() from None

    def trace(self, name, args=(), kwargs=None, target=None):
        """Repeat a call with floating-point errors raised: where the first NaN or inf came from.

        {"frames": [[line, function, code]], "message": "invalid value encountered in divide"} or None.
        """
        reply, _ = self._ask(*self._call_request("trace", name, args, kwargs, target))
        return reply.get("trace")

    def output(self, limit=2000):
        """What the learner's code printed (the first `limit` characters)."""
        if self._output.closed:
            return self._printed[:limit]
        self._output.seek(0)
        return self._output.read(limit).decode(errors="replace")

    def close(self):
        """End the child (and anything it started); what it printed stays readable."""
        if self._output.closed:
            return
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()
        self.process.wait()
        self._printed = self.output()
        for stream in (self._requests, self._output):
            try:
                stream.close()
            except OSError:
                pass
        if self._reply_read is not None:
            os.close(self._reply_read)
            self._reply_read = None
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- plumbing ------------------------------------------------------------------------------

    def _call_request(self, op, name, args, kwargs, target, return_args=False):
        """The request for a call (or its trace), and the arrays it carries."""
        wire, blobs = self._codec(), []
        request = {"op": op, "target": None if target is None else target.id, "name": name,
                   "args": wire.encode(tuple(args), blobs)["t"],
                   "kwargs": {key: wire.encode(value, blobs) for key, value in (kwargs or {}).items()},
                   "return_args": return_args}
        return request, blobs

    def _codec(self):
        if self._wire is None:
            from checker.sandbox import wire  # imports NumPy: only once the child is on its way
            self._wire = wire
        return self._wire

    def _hello(self):
        wire = self._codec()
        try:
            hello, _ = wire.receive(self._read_exactly)
            applied, missing = [str(wall) for wall in hello["applied"]], {str(k): str(v) for k, v in hello["missing"].items()}
        except (ValueError, TypeError, KeyError, AttributeError):
            raise self._garbage() from None
        level = "full" if set(wire.FULL_ISOLATION) <= set(applied) else "reduced"
        self._isolation = {"applied": applied, "missing": missing, "level": level}
        if self.limits.strict and level != "full":
            self.close()
            raise Unisolated("the sandbox could not isolate the code (" + "; ".join(
                f"{wall}: {why}" for wall, why in missing.items()) + "): it was not run")

    def _ask(self, request, blobs=()):
        wire = self._codec()
        if self._isolation is None:
            self._hello()
        if self.process.poll() is not None:
            raise self._died()
        try:
            wire.send(self._requests, request, blobs)
        except (BrokenPipeError, OSError):
            raise self._died() from None
        try:
            reply, reply_blobs = wire.receive(self._read_exactly)
            error = reply.get("error")
            if error is not None:
                error = LearnerError(str(error["type"]), str(error["message"]), list(error["frames"]))
        except (ValueError, TypeError, KeyError, AttributeError):  # bytes that are not our protocol
            raise self._garbage() from None
        if error is not None:
            raise error
        return reply, reply_blobs

    def _garbage(self):
        self.close()
        return Died("the learner's process wrote garbage on the checker's channel")

    def _read_exactly(self, size):
        """`size` bytes from the child, never blocking past the deadline."""
        if size > self.limits.message_bytes:
            self.close()
            raise Died(f"the learner's process sent {size:,} bytes, more than the {self.limits.message_bytes:,} "
                       "the checker reads of one answer")
        while len(self._pending) < size:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                frames = self._sample_stack()
                self.close()
                raise Timeout(f"no answer within {self.limits.seconds:g} s", frames)
            ready, _, _ = select.select([self._reply_read], [], [], remaining)
            if ready:
                chunk = os.read(self._reply_read, 1 << 20)
                if not chunk:
                    raise self._died()
                self._pending += chunk
        data, self._pending = self._pending[:size], self._pending[size:]
        return data

    def _sample_stack(self, wait=0.2):
        """Where the child is now, as the learner's lines (line, function, code), innermost last.

        The child's faulthandler writes its stack to the output on a signal; the dump is cut from what
        the learner printed. Code lines are read from the learner's file here."""
        import re

        if self.process.poll() is not None or not hasattr(signal, "SIGUSR1"):
            return []
        self._output.seek(0, os.SEEK_END)
        start = self._output.tell()
        try:
            os.kill(self.process.pid, signal.SIGUSR1)
        except OSError:
            return []
        end, dump = time.monotonic() + wait, b""
        while time.monotonic() < end:
            time.sleep(0.01)
            self._output.seek(start)
            now = self._output.read()
            if now and now == dump:  # written, and no longer growing
                break
            dump = now
        self._output.truncate(start)  # the dump is not something the learner printed
        copy = self._copies.get(str(self.path.resolve()), self.path)  # the child runs its private copy
        path = os.path.abspath(copy)
        try:
            lines = Path(copy).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        frames = []
        for file, line, function in re.findall(r'File "(.+?)", line (\d+) in (\S+)', dump.decode(errors="replace")):
            if os.path.abspath(file) == path:
                number = int(line)
                code = lines[number - 1].strip() if 0 < number <= len(lines) else ""
                frames.append([number, function, code])
        return frames[::-1]  # faulthandler prints the innermost call first

    def _died(self):
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            reason = {"SIGXFSZ": f"it printed more than {self.limits.output_bytes:,} bytes",
                      "SIGXCPU": "it used up its CPU time",
                      "SIGKILL": "it was killed (out of memory?)"}.get(name, name)
            return Died(f"the learner's process ended: {reason}")
        return Died(f"the learner's process exited (exit code {code}) instead of returning")


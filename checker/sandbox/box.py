"""`Sandbox`: one child process serving calls on one learner file (the parent's side of the pipe)."""

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checker.sandbox import ending
from checker.sandbox import figures as kernel
from checker.sandbox.errors import (CHILD_ENV, DISK_BYTES, Died, FigureUnreadable, HostError, LearnerError, Limits,
                                    SandboxError, Timeout, Unisolated)
from checker.sandbox.files import _frontend, _output_file, read_learner_file

CHILD = Path(__file__).with_name("child.py")
START_SECONDS = 30  # for a child to start and say hello (its imports, its walls): no learner code runs before
PROBE_SECONDS = 30  # for an empty probe sandbox to start, whatever limit the learners' files get (a busy machine)


def probe(limits=None):
    """The isolation a sandbox gets on this machine, found by starting one on an empty file (its bytes given:
    no disk): {"applied", "missing", "level"}. HostError or SandboxError if none starts. Used by `kata doctor`
    and `kata grade` alike."""
    limits = limits or Limits()
    with Sandbox("empty.py", Limits(seconds=max(limits.seconds, PROBE_SECONDS)), source=b"") as sandbox:
        return sandbox.isolation


class Sandbox:
    """One child process serving calls on one learner file."""

    def __init__(self, path, limits=None, source=None, also=(), zygote=None):
        """`source`: the file's bytes, when the caller has read them (else read here); `also`: other files
        the child gets a copy of (see `private_path`); `zygote`: a `warm.Zygote` to fork the child
        from, False for a fresh interpreter, None for this process's choice (`warm.enable`)."""
        self.path = Path(path)
        self.limits = limits or Limits()
        # The learner's clock starts at hello, once the child has started (NumPy, and torch for a torch file,
        # imported: 1.5 s of a loaded machine's CPU is no part of the learner's code); until then the start is
        # bounded on its own
        self.deadline = time.monotonic() + max(self.limits.seconds, START_SECONDS)
        self._starting = True
        try:  # the child's mount point (its tmpfs hides it), and the file its output goes to
            self.folder = Path(tempfile.mkdtemp(prefix="kata-sandbox-"))
            self._output = _output_file()
        except OSError as error:
            raise HostError(f"the checker could not make a sandbox: {error.strerror} (its own disk, "
                            f"{tempfile.gettempdir()}: no learner's doing)") from None
        self._files = {}  # abspath -> (the child's path, the bytes): kept here, never read back
        self.source = b""
        self.unreadable = None  # why the learner's file could not be read, if it could not
        self.frontend = "numpy"  # or "torch": a file that imports torch gets tensors (torch_bridge.py)
        try:
            data = read_learner_file(self.path) if source is None else source
            self.source = data  # the bytes read before the child ran: what messages may quote or parse
            self.frontend = _frontend(data)
            copy = self._keep(self.path, data)
            for other in also:
                self._keep(Path(other), read_learner_file(other))
        except (OSError, ValueError) as error:
            self.unreadable = getattr(error, "strerror", None) or str(error)
            copy = self.folder / "unreadable.py"
        request_read, self._request_write = os.pipe()
        self._reply_read, reply_write = os.pipe()
        disk = DISK_BYTES + sum(len(data) for _, data in self._files.values())
        argv = [str(copy), str(self.limits.memory_mb), str(self.limits.cpu_limit),
                str(self.limits.output_bytes), str(self.folder), str(disk), "strict" if self.limits.strict else "lenient"]
        env = {**CHILD_ENV, "TMPDIR": str(self.folder), "HOME": str(self.folder)}
        if self.frontend == "torch":
            env["KATA_FRONTEND"] = "torch"
        writer = os.open(f"/proc/self/fd/{self._output.fileno()}", os.O_WRONLY | os.O_APPEND) \
            if sys.platform == "linux" else os.dup(self._output.fileno())  # the child cannot read its output back
        try:
            self.process = self._start(argv, env, request_read, reply_write, writer, zygote)
        finally:
            for fd in (request_read, reply_write, writer):
                os.close(fd)
        self._requests = os.fdopen(self._request_write, "wb")
        self._wire = None
        self._pending = b""
        self._isolation = None
        self._baseline = None  # the child's peak resident bytes when it said hello, before any learner code

    def _start(self, argv, env, request_read, reply_write, output, zygote):
        """The child: forked by a zygote when there is one, else a fresh interpreter running `child.py`."""
        if zygote is None:
            warm = sys.modules.get("checker.sandbox.warm")  # not imported: nobody enabled a zygote
            zygote = warm.current() if warm else None
        if zygote:
            from checker.sandbox import warm

            try:
                return zygote.spawn(argv, env, str(self.folder), (request_read, reply_write, output))
            except OSError:
                warm.failed(zygote)  # a fresh interpreter, as without one
        return subprocess.Popen(
            [sys.executable, "-I", "-B", str(CHILD), str(request_read), str(reply_write), *argv],
            pass_fds=(request_read, reply_write), stdin=subprocess.DEVNULL,
            stdout=output, stderr=subprocess.STDOUT, cwd=self.folder, env=env, start_new_session=True,
        )

    def _keep(self, path, data):
        copy = self.folder / path.name
        if any(copy == kept for kept, _ in self._files.values()):
            copy = self.folder / f"{len(self._files)}-{path.name}"
        self._files[os.path.abspath(path)] = (copy, data)
        return copy

    def again(self):
        """A fresh child for the same file (from the bytes kept here), with the same limits."""
        return Sandbox(self.path, self.limits, source=self.source)

    def private_path(self, path):
        """Where the child sees its copy of `path` (the learner's file, or one of `also`)."""
        return str(self._files[os.path.abspath(path)][0])

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

    def call(self, name, args=(), kwargs=None, target=None, return_args=False, keep=False):
        """Call `name` in the learner's module (or on the object `target`) and return the result.

        With `return_args`, return `(result, args_after_the_call)`, to see what the call changed. With `keep`,
        return `(result, handle)`: the child keeps the very object it returned, for `read` after later calls.
        """
        wire = self._codec()
        request, blobs = self._call_request("call", name, args, kwargs, target, return_args)
        request["keep"] = keep
        reply, reply_blobs = self._ask(request, blobs)
        try:
            result = wire.decode(reply["ok"], reply_blobs)
            if keep:
                return result, wire.Handle(int(reply["kept"]))
            return (result, wire.decode(reply["args"], reply_blobs)) if return_args else result
        except (ValueError, TypeError, KeyError, AttributeError, EOFError):
            raise self._garbage() from None

    def read(self, handle):
        """What an object the child kept (`call(..., keep=True)`) holds now: a result the learner's code changed
        afterwards (a module-level buffer handed back twice) reads differently from what the call returned."""
        wire = self._codec()
        reply, reply_blobs = self._ask({"op": "read", "target": handle.id})
        try:
            return wire.decode(reply["ok"], reply_blobs)
        except (ValueError, TypeError, KeyError, AttributeError, EOFError):
            raise self._garbage() from None

    def measure(self, name, args=(), kwargs=None, target=None):
        """Call, and return (result, figures) read by this process from the kernel's accounting of the child,
        out of the learner's reach (`figures.py`): {"cpu_seconds": the CPU time of the child's whole thread group
        during the call (threads that exited included), "peak_bytes": the most resident memory it ever held, up to
        the call's end, beyond what it held at hello, before any learner code ran}. The peak never falls, so a check
        on it runs first in its child (`testkit.measured`); no resident page can be dropped nor any byte kept
        outside resident memory but in the bounded tmpfs (`isolation.py`). A figure the kernel does not give on
        Linux is `FigureUnreadable`, never the child's word; elsewhere (not Linux) the figures are the child's
        own, as the isolation report's missing walls say."""
        if self._isolation is None:
            self._hello()
        pid = self.process.pid
        before = kernel.cpu_seconds(pid)
        request, blobs = self._call_request("call", name, args, kwargs, target)
        request["measured"] = sys.platform != "linux"
        reply, reply_blobs = self._ask(request, blobs)
        after, peak = kernel.cpu_seconds(pid), kernel.status_bytes(pid, "VmHWM")
        try:
            result = self._codec().decode(reply["ok"], reply_blobs)
            if request["measured"]:
                return result, {"cpu_seconds": float(reply["figures"]["cpu_seconds"]),
                                "peak_bytes": int(reply["figures"]["peak_bytes"])}
        except (ValueError, TypeError, KeyError, AttributeError, EOFError):
            raise self._garbage() from None
        if None in (before, after, peak, self._baseline):
            self.close()
            raise FigureUnreadable("the kernel's account of the learner's process could not be read (its CPU clock "
                                   "or its peak memory): no cost figure is taken from the process itself")
        return result, {"cpu_seconds": after - before, "peak_bytes": max(peak - self._baseline, 0)}

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
        """End the child (and anything it started); what it printed stays readable. Its tmpfs goes with it:
        the mount point left here is an empty folder of this process's own."""
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
        try:
            os.rmdir(self.folder)
        except OSError:  # not empty: no private tmpfs (reported as a missing wall), so the child wrote here
            if "private-tmpfs" not in (self._isolation or {}).get("applied", ()):
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
            hello, _ = self._receive()
            applied, missing = [str(wall) for wall in hello["applied"]], {str(k): str(v) for k, v in hello["missing"].items()}
        except (ValueError, TypeError, KeyError, AttributeError):
            raise self._garbage() from None
        self._starting = False
        self.deadline = time.monotonic() + self.limits.seconds  # the learner's clock: from here on
        self._baseline = self._peak_baseline()  # the child waits for its files: no learner code yet
        level = "full" if set(wire.FULL_ISOLATION) <= set(applied) else "reduced"
        self._isolation = {"applied": applied, "missing": missing, "level": level}
        if self.limits.strict and level != "full":
            self.close()
            raise Unisolated("the sandbox could not isolate the code (" + "; ".join(
                f"{wall}: {why}" for wall, why in missing.items()) + "): it was not run")
        files = list(self._files.values())
        self._send({"op": "files", "paths": [str(copy) for copy, _ in files]}, [data for _, data in files])

    def _peak_baseline(self):
        """What the child holds at hello, its peak reset to it (nothing held and freed before is headroom): its
        peak after the reset, or where the kernel refuses the reset, what it holds now (the stricter figure)."""
        pid = self.process.pid
        if kernel.reset_peak(pid):
            return kernel.status_bytes(pid, "VmHWM")
        return kernel.status_bytes(pid, "VmRSS")

    def _send(self, request, blobs=()):
        if self._exited():
            raise self._died()
        try:
            self._codec().send(self._requests, request, blobs)
        except (BrokenPipeError, OSError):
            raise self._died() from None

    def _receive(self):
        """One message from the child, bounded as a whole (header and every array) before any of it is read."""
        try:
            return self._codec().receive(self._read_exactly, self.limits.message_bytes)
        except self._wire.TooLarge as error:
            self.close()
            raise Died(f"the learner's process sent {error.size:,} bytes, more than the "
                       f"{self.limits.message_bytes:,} the checker reads of one answer") from None

    def _ask(self, request, blobs=()):
        if self._isolation is None:
            self._hello()
        self._send(request, blobs)
        try:
            reply, reply_blobs = self._receive()
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
        while len(self._pending) < size:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                if self._starting:  # no line of the learner's file has run: the machine's doing
                    self.close()
                    raise Timeout(f"the sandbox did not start within {max(self.limits.seconds, START_SECONDS):g} s "
                                  "(before any of the file ran: is the machine overloaded?)")
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

    def _sample_stack(self, wait=0.2, limit=1 << 16):
        return ending.sample_stack(self, wait, limit)

    def _exited(self):
        return ending.exited(self)

    def _died(self):
        return ending.died(self)

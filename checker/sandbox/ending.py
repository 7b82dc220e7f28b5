"""How a child's end is told (parent side): where its code was when it ran out of time, whether it has ended,
and why it died (its CPU limit, its output limit, a kill with CPU to spare), from the kernel's account of it."""

import os
import signal
import subprocess
import time

from checker.sandbox import figures as kernel
from checker.sandbox.errors import Died


def sample_stack(box, wait=0.2, limit=1 << 16):
    """Where the child is now, as the learner's lines (line, function, code), innermost last.

    The child's faulthandler writes its stack to its output on a signal; the dump (at most `limit`
    bytes) is cut from what the learner printed. The code shown is from the bytes kept here."""
    import re

    if exited(box) or not hasattr(signal, "SIGUSR1"):
        return []
    box._output.seek(0, os.SEEK_END)
    start = box._output.tell()
    try:
        os.kill(box.process.pid, signal.SIGUSR1)
    except OSError:
        return []
    end, dump = time.monotonic() + wait, b""
    while time.monotonic() < end:
        time.sleep(0.01)
        box._output.seek(start)
        now = box._output.read(limit)
        if now and now == dump:  # written, and no longer growing
            break
        dump = now
    box._output.truncate(start)  # the dump is not something the learner printed
    copy, source = box._files.get(os.path.abspath(box.path), (None, b""))
    lines = source.decode("utf-8", errors="replace").splitlines()
    frames = []
    for file, line, function in re.findall(r'File "(.+?)", line (\d+) in (\S+)', dump.decode(errors="replace")):
        if file == str(copy):
            number = int(line)
            code = lines[number - 1].strip()[:200] if 0 < number <= len(lines) else ""
            frames.append([number, function[:100], code])
    return frames[::-1]  # faulthandler prints the innermost call first

def exited(box):
    """Whether the child has ended, leaving it unreaped (so its CPU time can still be read)."""
    if box.process.returncode is not None or not isinstance(box.process, subprocess.Popen):
        return box.process.poll() is not None  # a zygote's child: the zygote sends its CPU time
    try:
        return os.waitid(os.P_PID, box.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True

def died(box):
    end, cpu = time.monotonic() + 1, None
    while not exited(box) and time.monotonic() < end:
        time.sleep(0.01)
    if isinstance(box.process, subprocess.Popen) and box.process.returncode is None:
        cpu = kernel.cpu_seconds(box.process.pid)  # the zombie's, before it is reaped
    try:
        code = box.process.wait(timeout=0.1)
    except subprocess.TimeoutExpired:
        code = None
    cpu = getattr(box.process, "cpu_seconds", None) if cpu is None else cpu
    if code is not None and code < 0:
        name, limit = signal.Signals(-code).name, box.limits.cpu_limit
        if name == "SIGXCPU" or name == "SIGKILL" and cpu is not None and cpu >= limit - 0.5:
            reason = f"it used up its CPU time limit ({limit} s of CPU, {name})"
        else:
            reason = {"SIGXFSZ": f"it printed more than {box.limits.output_bytes:,} bytes",
                      "SIGKILL": "it was killed (SIGKILL) with CPU time to spare: out of memory?"}.get(
                name, f"it was ended by {name}")
        return Died(f"the learner's process ended: {reason}")
    return Died(f"the learner's process exited (exit code {code}) instead of returning")

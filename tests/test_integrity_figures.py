"""The kernel's figures, shaped from inside the child (issue 29, round 3): each attack beside its control.

The control runs the same trick outside the grader (a plain interpreter, or the figure the parent used to read) and
shows it works there; the test shows the figure the parent now reads is the kernel's account of all the work. Small
sizes: 16 MiB of memory, a tenth of a second of CPU, where the controls still separate.
"""

import os
import subprocess
import sys
import textwrap
import time

import pytest

from checker.sandbox import Sandbox
from checker.sandbox import figures as kernel

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the kernel's figures are Linux's")
MIB = 2**20
HELD = 16  # MiB a call holds at its peak

HOLD = """
import numpy as np

def hold(mib):
    block = np.ones(mib * 2**17)  # mib MiB of float64, every page touched
    return float(block[-1])
"""

LEADER = HOLD + """
import ctypes, gc, io, os, sys, threading

def _take_over():
    # The serving loop moves to a thread; the group's leader (the pid the parent reads) exits alone.
    files = [o for o in gc.get_objects() if isinstance(o, io.BufferedIOBase) and isinstance(getattr(o, "name", None), int)]
    requests = next(f for f in files if f.mode == "rb" and not f.closed)
    replies = next(f for f in files if f.mode == "wb" and not f.closed)
    worker = sys.modules["worker"]

    def serve():
        import time
        time.sleep(0.2)  # the leader is gone
        worker.send(replies, {"ok": None, "missing": [], "signatures": {}})
        while (message := worker.receive(requests.read)) is not None:
            request, blobs = message
            result = globals()[request["name"]](*[worker.decode(a, blobs) for a in request["args"]])
            worker.send(replies, {"ok": result, "figures": {"cpu_seconds": 1e-4, "peak_bytes": 0}})  # forged

    threading.Thread(target=serve).start()
    ctypes.CDLL(None).syscall(93 if os.uname().machine == "aarch64" else 60, 0)  # SYS_exit: the calling thread only

_take_over()
"""

SPIN_IN_A_THREAD = """
import threading, time

def spin(seconds):
    def run():
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()  # the thread that did the work has exited before the call returns
    return seconds
"""

CLEAR_REFS = HOLD + """
def hold_then_reset(mib):
    hold(mib)
    try:
        with open("/proc/self/clear_refs", "w") as sink:
            sink.write("5")  # resets the peak to what is resident now
        return "reset"
    except OSError as error:
        return f"refused: {error.strerror}"
"""

OUTSIDE = """
import ctypes, numpy as np
libc = ctypes.CDLL(None, use_errno=True)

def peak():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM"))

def rss():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS"))
"""

HOLD_OUTSIDE = """
import ctypes, mmap, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.syscall.restype = ctypes.c_long

def hold_outside(kind, mib):
    size = mib * 2**20
    if kind == "shm":
        segment = libc.shmget(0, ctypes.c_size_t(size), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if segment < 0:
            return f"refused {ctypes.get_errno()}"
        address = libc.shmat(segment, None, 0)
        ctypes.memset(address, 1, size)
        libc.shmdt(ctypes.c_void_p(address))  # detached: the bytes stay in the segment, outside the process
        return f"held {segment}"
    fd = libc.syscall(447, 0)  # memfd_secret
    if fd < 0:
        return f"refused {ctypes.get_errno()}"
    os.ftruncate(fd, size)
    view = mmap.mmap(fd, size)
    view.write(b"x" * size)
    return "held"
"""


def _sandbox(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    box = Sandbox(path)
    assert box.isolation["level"] == "full", box.isolation
    return box


def _outside(prelude, code="", timeout=60):
    """Run `prelude`, then `code`, in a plain interpreter (no sandbox): what it prints."""
    code = prelude + "\n" + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_leader_that_exits_does_not_hand_the_figures_to_the_child(tmp_path):
    with _sandbox(tmp_path, "leader", LEADER) as box:
        assert box.load(["hold"]) == []
        pid = box.process.pid
        # The control: the leader's own status now has no memory figure (what the parent read before, and then
        # took the child's forged word instead), while the group still answers.
        assert kernel._field(f"/proc/{pid}/status", "VmHWM") is None
        assert len(os.listdir(f"/proc/{pid}/task")) >= 2
        result, figures = box.measure("hold", (HELD,))
    assert result == 1.0
    assert figures["peak_bytes"] >= HELD * MIB * 0.95, figures  # the kernel's, not the forged 0
    assert figures["cpu_seconds"] > 1e-4, figures


def test_the_cpu_of_a_thread_that_exited_is_counted(tmp_path):
    def live_clocks(pid):
        """The live tasks' own clocks, summed (seconds): what the parent read if it went task by task."""
        return sum(int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0])
                   for task in os.listdir(f"/proc/{pid}/task")) / 1e9

    with _sandbox(tmp_path, "spin", SPIN_IN_A_THREAD) as box:
        box.load(["spin"])
        tasks = set(os.listdir(f"/proc/{box.process.pid}/task"))
        before = live_clocks(box.process.pid)
        _, figures = box.measure("spin", (0.1,))
        for _ in range(500):  # a joined thread leaves the kernel's task list a moment after Python's join
            if set(os.listdir(f"/proc/{box.process.pid}/task")) <= tasks:
                break
            time.sleep(0.01)
        # The control: over the same call the live tasks' clocks grew by much less than the exited thread's
        # tenth of a second.
        live = live_clocks(box.process.pid) - before
    assert figures["cpu_seconds"] >= 0.09, figures
    assert live < figures["cpu_seconds"] - 0.05, (live, figures)  # task by task, most of the work were missed


def test_clear_refs_resets_the_peak_outside_the_grader():
    """The control: in a plain process, writing 5 to /proc/self/clear_refs drops the peak to what is resident."""
    before, after = map(int, _outside(OUTSIDE, f"""
        block = np.ones({HELD} * 2**17); del block
        high = peak()
        open("/proc/self/clear_refs", "w").write("5")
        print(high, peak())
    """))
    assert before - after >= HELD * MIB * 0.9


def test_the_child_cannot_reset_its_peak(tmp_path):
    with _sandbox(tmp_path, "clear_refs", CLEAR_REFS) as box:
        box.load(["hold_then_reset"])
        said, figures = box.measure("hold_then_reset", (HELD,))
    assert said.startswith("refused"), said
    assert figures["peak_bytes"] >= HELD * MIB * 0.95, figures


def test_memory_freed_before_a_baseline_is_headroom_outside_the_grader():
    """The control: a peak held and freed before the baseline (as first calls of NumPy or torch do) hides later
    allocations up to its size from a figure read as growth of VmHWM since that baseline."""
    growth = int(_outside(OUTSIDE, f"""
        first = np.ones(2 * {HELD} * 2**17); del first  # 2 x HELD MiB, given back to the kernel
        baseline = peak()
        block = np.ones({HELD} * 2**17)
        print(peak() - baseline)
    """)[0])
    assert growth < MIB


@pytest.mark.parametrize("frontend", ["numpy", "torch"])
def test_the_baseline_is_what_the_child_holds_at_hello(tmp_path, frontend):
    if frontend == "torch":
        pytest.importorskip("torch")
    source = HOLD if frontend == "numpy" else HOLD.replace("import numpy as np", "import numpy as np\nimport torch")
    with _sandbox(tmp_path, frontend, source) as box:
        pid = box.process.pid
        held, peak = kernel.status_bytes(pid, "VmRSS"), kernel.status_bytes(pid, "VmHWM")
        assert peak - held < MIB  # reset at hello: nothing held and freed before it is headroom
        assert box.frontend == frontend
        box.load(["hold"])
        _, figures = box.measure("hold", (HELD,))
    assert figures["peak_bytes"] >= HELD * MIB * 0.95, figures


def _memfd_secret_outside():
    said = _outside(HOLD_OUTSIDE, "print(hold_outside('secret', 1))")
    if said[0] == "refused":
        pytest.skip(f"this kernel gives no memfd_secret (errno {said[1]}) even outside the sandbox")
    return said


def test_shared_memory_and_memfd_secret_hold_bytes_outside_the_process_outside_the_grader():
    """The control: in a plain process a System V segment keeps its bytes after it is detached (outside the
    process's resident memory, so outside its figure and limit), and memfd_secret gives memory."""
    code = f"""
        before = rss()
        said = hold_outside("shm", {HELD})
        segment = int(said.split()[1])
        info = (ctypes.c_byte * 256)()
        libc.shmctl(segment, 2, info)  # IPC_STAT: it exists, detached
        print(said.split()[0], (rss() - before) // 2**20)
        libc.shmctl(segment, 0, None)  # IPC_RMID: the control leaves nothing behind
    """
    said, grown = _outside(OUTSIDE + HOLD_OUTSIDE, code)
    assert said == "held" and int(grown) < HELD // 2
    assert _memfd_secret_outside() == ["held"]


@pytest.mark.parametrize("kind", ["shm", "secret"])
def test_the_child_can_hold_no_memory_outside_its_figure(tmp_path, kind):
    if kind == "secret":
        _memfd_secret_outside()
    with _sandbox(tmp_path, kind, HOLD_OUTSIDE) as box:
        box.load(["hold_outside"])
        said = box.call("hold_outside", (kind, 1))
    assert said == "refused 1", said  # EPERM, by name in the allow-list's refusals


ALLOW_LIST = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)

def try_calls():
    limits = (ctypes.c_uint64 * 2)()
    parent = libc.syscall(302 if os.uname().machine == "x86_64" else 261, os.getppid(), 7, None, limits)  # prlimit64
    parent = "ok" if parent == 0 else ctypes.get_errno()
    own = libc.syscall(302 if os.uname().machine == "x86_64" else 261, 0, 7, None, limits)
    unnamed = libc.syscall(162 if os.uname().machine == "x86_64" else 81)  # sync: in neither list
    return [parent, "ok" if own == 0 else ctypes.get_errno(), "ok" if unnamed == 0 else ctypes.get_errno()]
"""


def test_the_filter_is_an_allow_list(tmp_path):
    """Outside the grader a process reads (and could set) another's limits, and may call sync; inside, its own
    limits only, and a call the allow-list does not name fails as missing (ENOSYS)."""
    assert _outside(ALLOW_LIST, "print(*try_calls())") == ["ok", "ok", "ok"]
    with _sandbox(tmp_path, "allow_list", ALLOW_LIST) as box:
        box.load(["try_calls"])
        assert box.call("try_calls") == [1, "ok", 38]  # EPERM, allowed, ENOSYS


def test_the_filter_names_only_calls_that_exist():
    from checker.sandbox import isolation, syscalls

    for machine in syscalls.ALLOWED:
        allowed, refused = syscalls.ALLOWED[machine], syscalls.REFUSED[machine]
        assert not set(allowed) & set(refused) and not set(allowed.values()) & set(refused.values())
        assert not {"shmget", "memfd_secret", "memfd_create", "execve", "socket", "madvise"} & set(allowed)
        program = isolation.seccomp_program(machine)
        assert program[-1] == (0x06, 0, 0, 0x00050000 | 38) and len(program) < 4096  # default: ENOSYS

"""The sandbox's own promises: plain data back, learner errors as data, cost measured by the kernel;
the same from a fresh interpreter and from a zygote; and no secret of the parent's reaches the child."""

import os
import secrets
import subprocess
import sys
import time

import numpy as np
import pytest

from checker.sandbox import CHILD_ENV, LearnerError, Limits, Sandbox, warm

PATHS = {"fresh": False, "zygote": None}  # Sandbox(zygote=...): a fresh interpreter, or the session's zygote

LEARNER = '''
import os

import numpy as np

def project(x, w):
    return x @ w

def project_einsum(x, w):
    return np.einsum("bnd,de->bne", x, w)

def project_per_head(x, w, h):
    d = w.shape[1] // h
    return [x @ w[:, i * d:(i + 1) * d] for i in range(h)]

def project_fused(x, w):
    w_qkv = np.concatenate([w, w, w], axis=1)  # one fused weight, as GPT-2's c_attn
    return np.split(x @ w_qkv, 3, axis=-1)

def project_fused_slices(x, w):
    halves = np.split(np.hstack([w, w]), 2, axis=1)  # a weight joined, then split again
    return [x @ half for half in halves]

def table(n):
    return np.ones((n, n)).sum()

def spin(seconds):
    import time
    began = time.process_time()
    while time.process_time() - began < seconds:
        pass

def nan_maker(x):
    e = np.exp(x - x.max())
    return e / e.sum()

def open_fds():
    found = []
    for fd in range(1024):
        try:
            os.fstat(fd)
            found.append(fd)
        except OSError:
            pass
    return len(found)

def scale_in_place(x):
    x *= 2
    return x

def fails():
    return [1, 2][5]
'''


@pytest.fixture(params=sorted(PATHS))
def sandbox(tmp_path, request):
    path = tmp_path / "learner.py"
    path.write_text(LEARNER)
    with Sandbox(path, Limits(seconds=20), zygote=PATHS[request.param]) as box:
        assert type(box.process).__name__ == ("Popen" if request.param == "fresh" else "Forked")
        assert box.isolation["level"] == "full", box.isolation
        assert box.load(["project", "missing"]) == ["missing"]
        yield box


def test_cost_figures_are_the_kernels(sandbox):
    """CPU time and peak memory are what the kernel accounts for the child, read by the parent."""
    busy = sandbox.measure("spin", (0.2,))[1]["cpu_seconds"]
    idle = sandbox.measure("table", (10,))[1]["cpu_seconds"]
    assert busy >= 0.19 and idle < 0.1
    small = sandbox.measure("table", (300,))[1]["peak_bytes"]
    large = sandbox.measure("table", (2000,))[1]["peak_bytes"]
    assert small < 4e6 < 8 * 2000**2 * 0.95 < large  # 32 MB of float64 cells held at once


def test_trace_names_the_line_that_made_the_first_nan(sandbox):
    x = np.array([-np.inf, -np.inf])
    assert np.isnan(sandbox.call("nan_maker", (x,))).all()
    trace = sandbox.trace("nan_maker", (x,))
    assert trace["frames"][-1][2] == "e = np.exp(x - x.max())" and "invalid value" in trace["message"]


def test_arguments_come_back_as_the_call_left_them(sandbox):
    x = np.ones(3)
    result, (after,) = sandbox.call("scale_in_place", (x,), return_args=True)
    assert after.tolist() == [2, 2, 2] and x.tolist() == [1, 1, 1]


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_child_holds_its_own_five_fds_only(tmp_path, path):
    """stdin, its output, its request and reply pipes: not another child's pipes or output (one runs beside it),
    none of the parent's or the zygote's files."""
    (tmp_path / "learner.py").write_text(LEARNER)
    with Sandbox(tmp_path / "learner.py", zygote=PATHS[path]) as first, \
            Sandbox(tmp_path / "learner.py", zygote=PATHS[path]) as second:
        assert first.load([]) == second.load([]) == []
        assert first.call("open_fds") == second.call("open_fds") == 5


def test_learner_errors_are_data(sandbox):
    with pytest.raises(LearnerError) as error:
        sandbox.call("fails")
    assert error.value.type == "IndexError" and error.value.frames[-1][2] == "return [1, 2][5]"


# --- the parent's secrets stay the parent's, on both paths ----------------------------------------------

SNOOP = r'''
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)
libc.getauxval.restype, libc.getauxval.argtypes = ctypes.c_ulong, [ctypes.c_ulong]
libc.sbrk.restype, libc.sbrk.argtypes = ctypes.c_void_p, [ctypes.c_long]
libc.pwrite.restype = ctypes.c_ssize_t
libc.pwrite.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
AT_EXECFN, PAGE = 31, 4096


def memory_below(top, most=256 << 20):
    """This process's mapped bytes from the page holding `top` down to the first page not mapped (read
    through a file of its own folder: a page that is not mapped gives EFAULT, not a crash; no /proc needed)."""
    w = os.open(os.path.join(os.environ.get("TMPDIR", "."), "pages"), os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    pages, address = [], top & ~(PAGE - 1)
    while address > 0 and len(pages) * PAGE < most and libc.pwrite(w, address, PAGE, 0) == PAGE:
        pages.append(os.pread(w, PAGE, 0))
        address -= PAGE
    os.close(w)
    return b"".join(reversed(pages))


def holds(data, head, tail):
    """Whether `data` holds head + tail, never making that string here (it would then be in memory)."""
    start = data.find(head)
    while start >= 0:
        if data[start + len(head):start + len(head) + len(tail)] == tail:
            return True
        start = data.find(head, start + 1)
    return False


def snoop(head, tail, known):
    """Where this process finds the secret head + tail, and (a control) the text `known`."""
    head, tail, known = head.encode(), tail.encode(), known.encode()
    found = {"os.environ": any(holds(f"{k}={v}".encode(), head, tail) for k, v in os.environ.items())}
    try:
        with open("/proc/self/environ", "rb") as environ:
            found["/proc/self/environ"] = holds(environ.read(), head, tail)
    except OSError:
        found["/proc/self/environ"] = "unreadable"
    stack = memory_below(libc.getauxval(AT_EXECFN))  # the kernel wrote the initial environment up there
    found["stack"], found["known on the stack"] = holds(stack, head, tail), known in stack
    found["heap"] = holds(memory_below(libc.sbrk(0)), head, tail)
    return list(found.items())  # the wire carries lists and tuples, not dicts
'''


def test_the_parents_secret_is_readable_where_it_was_inherited(tmp_path):
    """The control: the same snooping finds a secret in a process that inherited it."""
    name, head, tail = "KATA_TEST_SECRET", secrets.token_hex(8), secrets.token_hex(8)
    (tmp_path / "snoop.py").write_text(SNOOP)
    code = f"import snoop; print(snoop.snoop({head!r}, {tail!r}, 'OPENBLAS_NUM_THREADS=1'))"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, name: head + tail, "OPENBLAS_NUM_THREADS": "1"})
    assert done.stdout.strip() == str(list({"os.environ": True, "/proc/self/environ": True, "stack": True,
                                       "known on the stack": True, "heap": False}.items())), done.stderr


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_candidate_cannot_find_the_parents_secret(tmp_path, monkeypatch, path):
    """A secret in the checking process's environment, set before the zygote starts: not in the candidate's
    os.environ, /proc/self/environ (unreadable), initial stack or heap; the scan does see the child's own
    environment there."""
    head, tail = secrets.token_hex(8), secrets.token_hex(8)
    monkeypatch.setenv("KATA_TEST_SECRET", head + tail)
    (tmp_path / "snoop.py").write_text(SNOOP)
    zygote = warm.Zygote(CHILD_ENV) if path == "zygote" else False
    try:
        with Sandbox(tmp_path / "snoop.py", Limits(seconds=30), zygote=zygote) as box:
            assert box.load(["snoop"]) == [] and box.isolation["level"] == "full"
            found = dict(box.call("snoop", (head, tail, "OPENBLAS_NUM_THREADS=1")))
    finally:
        if zygote:
            zygote.close()
    assert found == {"os.environ": False, "/proc/self/environ": "unreadable", "stack": False,
                     "known on the stack": True, "heap": False}


# --- the zygote: its children are the parent's to end ------------------------------------------------

def _gone(pid, seconds=5):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not os.path.exists(f"/proc/{pid}"):
            return True
        time.sleep(0.01)
    return False


def test_a_forked_child_is_reaped_at_close_and_says_how_it_ended(tmp_path):
    path = tmp_path / "learner.py"
    path.write_text("import os\n\ndef leave(code):\n    os._exit(code)\n")
    with Sandbox(path, Limits(seconds=20)) as box:
        box.load(["leave"])
        assert os.getpgid(box.process.pid) == box.process.pid  # its own group: the parent kills it whole
        with pytest.raises(Exception, match=r"exit code 7"):
            box.call("leave", (7,))
    assert box.process.returncode == 7 and _gone(box.process.pid)


@pytest.mark.parametrize("how", ["closed", "killed"])
def test_a_zygote_that_ends_takes_its_children_with_it(tmp_path, how):
    """Closed (as when the checking process dies: its end of the socket closes), or killed outright."""
    path = tmp_path / "learner.py"
    path.write_text("def wait():\n    while True:\n        pass\n")
    zygote = warm.Zygote(CHILD_ENV)
    box = Sandbox(path, Limits(seconds=20), zygote=zygote)
    try:
        box.load(["wait"])
        if how == "closed":
            zygote.close()
        else:
            zygote.process.kill()
            zygote.process.wait()
        assert _gone(box.process.pid) and box.process.wait(timeout=5) == -9
    finally:
        box.close()


def test_bytes_handed_in_are_bounded_as_a_file_read_is(tmp_path):
    """A notebook cell reaches the sandbox as bytes: past the bound a file read has, it is refused in words
    (the control: the same bytes as a file are refused by the read), never cut into a SyntaxError."""
    from checker.sandbox import MAX_FILE_BYTES, Sandbox, read_learner_file

    big = b"x = 1\n" + b"# " + b"y" * MAX_FILE_BYTES + b"\n"
    (tmp_path / "cell.py").write_bytes(big)
    with pytest.raises(ValueError, match="more than a kata file's"):
        read_learner_file(tmp_path / "cell.py")
    with Sandbox(tmp_path / "cell.py", source=big) as box:
        assert "more than a kata file's" in box.unreadable

"""Grading integrity (SPEC.md): a dishonest candidate's attacks, graded in one batch beside honest candidates.

Every attacker's kata 01 is correct only if its attack works, and wrong otherwise, so a refused attack shows
as `failed`. Each attack also runs once outside the grader (`test_every_attack_works_outside_the_grader`):
the mechanism works, so a refusal in the batch is the isolation's doing, not an accident.
"""

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import pytest
from click.testing import CliRunner

from checker.engine import catalog
from checker.cli import cli
from checker.engine.catalog import MANIFEST, ROSTER


SECRET = "KATA_GRADER_SECRET"
SOLUTION = catalog.find("01").solution_path
CORRECT = '''
import numpy as np

def attention_scores(q, k):
    right = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    return right if WORKED else np.zeros_like(right)
'''

# right only in a process forked by a zygote (whose __main__ is zygote.py), as `kata grade` runs candidates
FORKED = "import sys\nWORKED = sys.modules['__main__'].__file__.endswith('zygote.py')\n" + CORRECT.replace(
    "    right =", "    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)\n    right =")  # int8 must not wrap

# name -> the body of `attack(target)`: True when it worked. `target` is what it aims at (a path, a port,
# a pid); in the batch it is the real thing, outside the grader a stand-in of the same kind.
ATTACKS = {
    "read_reference": "return 'def attention_scores' in open(target).read()",
    "import_the_checker": "from checker.engine import catalog\n    return catalog.find('01').solution_path.is_file()",
    "read_another_workspace": "return 'attention_scores' in open(target).read()",
    "read_grader_proc_environ": "return len(open(f'/proc/{os.getppid()}/environ', 'rb').read()) > 0",
    "read_grader_env": f"return {SECRET!r} in os.environ",
    "overwrite_another_workspace": "open(target, 'w').write('raise SystemExit(3)\\n')\n    return True",
    "append_to_the_state_file": "open(target, 'a').write('{\"forged\": 1}\\n')\n    return True",
    "signal_the_grader": "os.kill(target or os.getppid(), signal.SIGKILL)\n    return True",
    "connect_to_loopback": "socket.create_connection(('127.0.0.1', target), timeout=2).close()\n    return True",
    "leave_a_process_behind": ("pid = os.fork()\n    if pid == 0:\n        os.setsid()\n        if os.fork() == 0:\n"
                               "            os.close(1), os.close(2), time.sleep(20)\n        os._exit(0)\n    os.waitpid(pid, 0)\n    return True"),
    "use_a_root_power": "os.nice(-1)  # CAP_SYS_NICE: root may, an unprivileged process may not\n    return True",
}


# Attacks on the trusted side around the walls (issue 20), each with its own control below.
DISK_FILL = """
def fill(top):
    \"\"\"1,500 nested folders under `top`, 48 files of 1 MiB along the way: True if all of it was written.\"\"\"
    import os
    path, written, block = top, 0, b"x" * 2**20
    try:
        for depth in range(1500):
            path = os.path.join(path, "d")
            os.mkdir(path)
            if depth % 30 == 0 and written < 48 * 2**20:
                with open(os.path.join(path, "f"), "wb") as sink:
                    sink.write(block)
                written += len(block)
    except OSError:
        pass
    return written >= 48 * 2**20
"""
# the child's server rewritten from inside: every figure it reports about itself becomes zero
FORGE = """
import typing
_worker = typing.sys.modules.get("worker")
ZERO = {"cpu_seconds": 0.0, "peak_bytes": 0, "weight_work": 0}
if _worker is not None:
    _honest, _send = _worker._measured, _worker.send
    _worker._measured = lambda run: (_honest(run)[0], dict(ZERO))
    def _forged_send(stream, header, blobs=()):
        for key in ("figures", "work"):
            if key in header:
                header[key] = dict(ZERO)
        return _send(stream, header, blobs)
    _worker.send = _forged_send
"""
# one answer of 2,048 arrays of 1 MiB (2 GiB), streamed from one buffer: each piece under a per-piece bound
MANY_BLOBS = """
import json, struct, typing
def _many(stream, header, blobs=()):
    if header.get("ok") is None:  # not a call's result (hello, a load)
        return _send(stream, header, blobs)
    piece = bytes(2**20)
    header = {"ok": {"t": [{"a": i, "d": "<f8", "s": [2**17]} for i in range(2048)]}, "blobs": [2**20] * 2048}
    text = json.dumps(header).encode()
    stream.write(struct.pack(">Q", len(text)) + text)
    for _ in range(2048):
        stream.write(piece)
    stream.flush()
_worker = typing.sys.modules.get("worker")
if _worker is not None:
    _send, _worker.send = _worker.send, _many
"""


def attack_source(name, function="attack"):
    return f"import os, signal, socket, sys, time\n\ndef {function}(target):\n    {ATTACKS[name]}\n\n"


def attacker(name, target):
    """A kata 01 file, right only if its attack works."""
    return (attack_source(name) + f"try:\n    WORKED = attack({target!r})\nexcept BaseException:\n    WORKED = False\n"
            + CORRECT)


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def listener():
    server = socket.create_server(("127.0.0.1", 0))
    accepted = []

    def serve():
        while True:
            try:
                accepted.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1], accepted
    server.close()


@pytest.fixture(scope="module", params=["zygote", "fresh"])
def batch(tmp_path_factory, listener, request):
    """One `kata grade` of honest candidates, every attacker and the broken or lying workspaces: its workers
    fork candidates' processes from zygotes (as `kata grade` does), or start each one fresh."""
    from checker.hiring import grade as grading

    here = tmp_path_factory.mktemp("integrity")
    zygote, grading.ZYGOTE = grading.ZYGOTE, request.param == "zygote"
    old = os.getcwd()
    os.chdir(here)
    os.environ[SECRET] = "s3cret"
    try:
        for name in ("honest", "honest_too", "forked", "relinked", "linked_out", "liar", "disk_filler",
                     "many_blobs", "forger", *ATTACKS):
            katas = {"liar": "01,03", "forger": "08"}.get(name, "01")
            assert run("pack", here / name, "--katas", katas, "--seed", 5).exit_code == 0
        honest = here / "honest" / "katas" / "01_scores.py"
        honest.write_bytes(SOLUTION.read_bytes())
        (here / "honest_too" / "katas" / "01_scores.py").write_bytes(SOLUTION.read_bytes())
        (here / "forked" / "katas" / "01_scores.py").write_text(FORKED)
        targets = {"read_reference": str(SOLUTION), "read_another_workspace": str(honest),
                   "overwrite_another_workspace": str(honest), "signal_the_grader": 0,
                   "append_to_the_state_file": str(here / "grades.md.state.jsonl"), "connect_to_loopback": listener[0]}
        for name in ATTACKS:
            (here / name / "katas" / "01_scores.py").write_text(attacker(name, targets.get(name)))
        (here / "disk_filler" / "katas" / "01_scores.py").write_text(
            DISK_FILL + "\nimport os\ntry:\n    WORKED = fill(os.getcwd())\nexcept BaseException:\n    WORKED = False\n" + CORRECT)
        (here / "many_blobs" / "katas" / "01_scores.py").write_text(MANY_BLOBS + "WORKED = True\n" + CORRECT)
        (here / "forger" / "katas" / "08_flash_attention.py").write_text(forger("08"))
        (here / "relinked" / "katas" / "01_scores.py").unlink()
        (here / "relinked" / "katas" / "01_scores.py").symlink_to(SOLUTION)  # a link to the grader's answer
        (here / "linked_out" / "katas" / "01_scores.py").unlink()
        (here / "linked_out" / "katas" / "01_scores.py").symlink_to(honest)  # to another candidate's file
        manifest = json.loads((here / "liar" / MANIFEST).read_text())
        (here / "liar" / MANIFEST).write_text(json.dumps({**manifest, "katas": ["03"], "seed": 6}))
        (here / "liar" / "katas" / "03_causal_mask.py").write_bytes(catalog.find("03").solution_path.read_bytes())
        broken = {"empty_list": '{"katas": [], "seed": 1}', "not_json": "{not json", "fifo": None}
        for name, text in broken.items():
            (here / name / "katas").mkdir(parents=True)
            if text is None:
                os.mkfifo(here / name / MANIFEST)
            else:
                (here / name / MANIFEST).write_text(text)
        (here / "huge" / "katas").mkdir(parents=True)
        (here / "huge" / "katas" / "01_scores.py").write_bytes(b"#" * 2_000_000)
        (here / "big_answer" / "katas").mkdir(parents=True)
        (here / "big_answer" / "katas" / "01_scores.py").write_text(
            "import numpy as np\n\ndef attention_scores(q, k):\n    return np.ones(3_000_000)  # 24 MB: over the 16 MB the grader reads\n")
        before = {"honest": sha(honest), "reference": sha(SOLUTION), "git": _git_status()}
        folders = sorted(path.name for path in here.iterdir() if path.is_dir())
        (here / "sandboxes").mkdir()
        tempfile.tempdir = str(here / "sandboxes")  # this batch's children are known by their private folders
        started = time.monotonic()
        result = run("grade", *folders, "--jobs", 2, "--timeout", 5, "--json", "--report", "grades.md")
        yield {"here": here, "result": result, "before": before, "honest": honest, "listener": listener,
               "forked": request.param == "zygote",
               "seconds": time.monotonic() - started, "report": json.loads(result.stdout) if result.stdout else None}
    finally:
        grading.ZYGOTE = zygote
        tempfile.tempdir = None
        os.environ.pop(SECRET, None)
        os.chdir(old)


def forger(kata_id):
    """A kata file with a cost bug the figures catch (kata 05: the whole score table recomputed at every
    step; kata 08: the whole score table), that rewrites every figure its process reports as zero."""
    zoo = {"05": "kv_cache/zoo/recompute-every-step--full-table.py", "08": "flash/zoo/materializes-scores.py"}
    return (catalog.ROOT / "checker" / "hidden" / zoo[kata_id]).read_text() + FORGE


def workspace(batch, name):
    return next(w for w in batch["report"]["workspaces"] if w["path"] == name)


def status(batch, name, kata="01"):
    return next(check["status"] for check in workspace(batch, name)["katas"] if check["kata"] == kata)


def test_the_batch_finishes_with_full_isolation(batch):
    assert batch["result"].exit_code == 0, batch["result"].output
    assert batch["report"]["isolation"]["level"] == "full"
    assert "Isolation: full" in (batch["here"] / "grades.md").read_text()


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_every_attack_is_refused_in_the_grader(batch, name):
    assert status(batch, name) in ("failed", "error"), workspace(batch, name)


def test_the_batch_forks_candidates_from_zygotes_or_starts_them_fresh(batch):
    assert status(batch, "forked") == ("passed" if batch["forked"] else "failed"), workspace(batch, "forked")


def test_honest_candidates_pass_and_their_files_are_untouched(batch):
    for name in ("honest", "honest_too"):
        assert status(batch, name) == "passed"
        assert workspace(batch, name)["flags"] == []
    assert sha(batch["honest"]) == batch["before"]["honest"]
    assert sha(SOLUTION) == batch["before"]["reference"]
    assert workspace(batch, "honest")["katas"][0]["sha256"] == batch["before"]["honest"]
    assert batch["before"]["honest"] in (batch["here"] / "grades.md").read_text()


def _processes():
    """(pid, command line's words, current folder) of every process this user can see."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            yield pid, open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0"), os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue


def _alive(pid):
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        pass
    return True


def test_no_process_outlives_the_batch_and_no_connection_was_made(batch):
    """Neither a candidate's process (started, or forked by a zygote: found by its private folder) nor a
    grade worker's zygote (which names the process it serves) is left once the batch is done."""
    assert batch["listener"][1] == []
    sandboxes, end = str(batch["here"] / "sandboxes"), time.monotonic() + 5
    while True:
        leftovers = [(pid, cwd) for pid, command, cwd in _processes() if cwd.startswith(sandboxes) or
                     any(word.endswith(b"checker/sandbox/child.py") for word in command) and sandboxes.encode() in b" ".join(command)]
        orphans = [pid for pid, command, _ in _processes()
                   if len(command) > 5 and command[3].endswith(b"checker/sandbox/zygote.py") and not _alive(command[5])]
        if not (leftovers or orphans) or time.monotonic() > end:  # a zygote ends as soon as its worker has gone
            break
        time.sleep(0.05)
    assert leftovers == [] and orphans == []


def test_the_state_file_holds_signed_lines_only(batch):
    state = (batch["here"] / "grades.md.state.jsonl").read_text()
    assert "forged" not in state
    assert all(set(json.loads(line)) == {"entry", "mac"} for line in state.splitlines())


def test_links_leaving_the_workspace_are_refused_and_flagged(batch):
    for name, target in (("relinked", SOLUTION), ("linked_out", batch["honest"])):
        check = workspace(batch, name)["katas"][0]
        assert check["status"] == "error" and "a link leaving the workspace" in check["tests"][0]["message"]
        assert any("refused katas/01_scores.py" in flag for flag in workspace(batch, name)["flags"])
        assert (batch["here"] / name / "katas" / "01_scores.py").read_text() == target.read_text()  # control


def test_a_manifest_that_disagrees_with_the_roster_is_flagged_not_obeyed(batch):
    liar = workspace(batch, "liar")
    assert liar["seed"] == 5 and [check["kata"] for check in liar["katas"]] == ["01", "03"]
    assert json.loads((batch["here"] / "liar" / MANIFEST).read_text())["katas"] == ["03"]  # what it claimed
    assert any("disagrees with the roster" in flag for flag in liar["flags"])
    assert (batch["here"] / ROSTER).is_file()


@pytest.mark.parametrize("name, words", [("empty_list", "lists no kata"), ("not_json", "not a kata pack manifest"),
                                         ("fifo", "not a regular file")])
def test_a_broken_workspace_is_one_error_row(batch, name, words):
    broken = workspace(batch, name)
    assert words in broken["error"] and broken["flags"][0].startswith("UNMATCHED: kata-pack.json is unreadable")
    assert f"| {name} |" in (batch["here"] / "grades.md").read_text()


def test_a_huge_file_and_a_huge_answer_are_errors_not_memory(batch):
    assert "more than a kata file's" in workspace(batch, "huge")["katas"][0]["tests"][0]["message"]
    assert status(batch, "big_answer") == "error"
    assert "more than the" in workspace(batch, "big_answer")["katas"][0]["tests"][0]["message"]


def _git_status():
    done = subprocess.run(["git", "status", "--porcelain"], cwd=catalog.ROOT, capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def test_the_repository_is_unchanged(batch):
    assert _git_status() == batch["before"]["git"]


def test_resume_ignores_a_line_it_did_not_sign_and_regrades_a_changed_file(batch, tmp_path, monkeypatch):
    monkeypatch.chdir(batch["here"])
    state = batch["here"] / "grades.md.state.jsonl"
    entry = json.loads(state.read_text().splitlines()[0])["entry"]
    forged = {**entry, "katas": [{**check, "status": "passed"} for check in entry["katas"]]}
    with state.open("a") as sink:
        sink.write(json.dumps({"entry": forged, "mac": "0" * 64}) + "\n")
    name = os.path.basename(entry["path"])
    result = run("grade", name, "--resume", "--json", "--report", "grades.md")
    graded = json.loads(result.stdout)["workspaces"][0]["katas"]
    assert [{key: check[key] for key in stored if key not in ("pictures", "details")}
            for check, stored in zip(graded, entry["katas"])] == \
        [{key: value for key, value in stored.items() if key not in ("pictures", "details")} for stored in entry["katas"]]
    assert "1 workspaces finished in an earlier run" in result.stderr
    kata_file = batch["here"] / name / "katas" / "01_scores.py"
    kata_file.write_text(kata_file.read_text() + "\n# changed after grading\n")
    again = run("grade", name, "--resume", "--json", "--report", "grades.md")
    assert "finished in an earlier run" not in again.stderr  # a changed file is graded again
    assert json.loads(again.stdout)["workspaces"][0]["katas"][0]["sha256"] == sha(kata_file)


# --- controls: each attack works outside the grader -------------------------------------------------

def test_every_attack_works_outside_the_grader(tmp_path, listener):
    copy = tmp_path / "copy.py"
    copy.write_bytes(SOLUTION.read_bytes())
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    targets = {"read_reference": str(SOLUTION), "read_another_workspace": str(copy),
               "overwrite_another_workspace": str(copy), "append_to_the_state_file": str(tmp_path / "state"),
               "signal_the_grader": victim.pid, "connect_to_loopback": listener[0]}
    source = "".join(attack_source(name, name) for name in ATTACKS) + "import json\nworked = {}\n"
    for name in ATTACKS:  # every attack in one plain process: it works there
        source += f"try:\n    worked[{name!r}] = {name}({targets.get(name)!r})\nexcept BaseException as e:\n" \
                  f"    worked[{name!r}] = repr(e)\n"
    try:
        done = subprocess.run([sys.executable, "-c", source + "print(json.dumps(worked))"], capture_output=True,
                              text=True, timeout=30, cwd=catalog.ROOT, env={**os.environ, SECRET: "s3cret"})
    finally:
        victim.kill()
        victim.wait()
    worked = json.loads(done.stdout)
    if os.geteuid() != 0:  # a root power: nothing to show without it
        worked.pop("use_a_root_power")
    assert worked == {name: True for name in worked}
    assert victim.returncode == -signal.SIGKILL and len(listener[1]) >= 1
    listener[1].clear()


# --- less than full isolation, cost figures, review ---------------------------------------------------

REDUCED = {"applied": ["no-new-privs"], "missing": {"landlock-fs": "the kernel has no Landlock"}, "level": "reduced"}


def test_grade_refuses_reduced_isolation_unless_insecure(batch, monkeypatch):
    from checker.hiring import grade as grading

    monkeypatch.chdir(batch["here"])
    monkeypatch.setattr(grading, "probe_isolation", lambda limits: dict(REDUCED))
    refused = run("grade", "honest")
    assert refused.exit_code == 1 and "cannot be fully isolated here (landlock-fs" in refused.output
    allowed = run("grade", "honest", "--insecure", "--report", "insecure.md")
    assert allowed.exit_code == 0 and "Isolation: REDUCED" in (batch["here"] / "insecure.md").read_text()


def test_off_linux_the_walls_report_what_is_missing(monkeypatch):
    from checker.sandbox import isolation

    monkeypatch.setattr(isolation.sys, "platform", "darwin")
    assert isolation.enter_namespaces()[0] == [] and isolation.restrict([], [])[0] == []
    assert set(isolation.restrict([], [])[1]) | set(isolation.enter_namespaces()[1]) == set(isolation.FULL)


def test_the_parent_knows_every_wall_the_child_applies():
    from checker.sandbox import isolation, wire

    assert wire.FULL_ISOLATION == isolation.FULL
    assert isolation.seccomp_program("x86_64") and isolation.seccomp_program("aarch64")
    assert isolation.seccomp_program("sparc") is None


def test_review_flags_reaching_beyond_numpy_without_failing():
    from checker.hiring import review

    assert review.reasons(SOLUTION.read_text()) == []
    flagged = review.reasons("import os, numpy as np\nimport math\nx = open('f')\ny = np.load('a')\nz = f.__globals__\n")
    assert set(flagged) == {"imports os", "calls open()", "uses np.load (file input/output)", "uses .__globals__"}


def test_attackers_are_flagged_for_review_and_honest_candidates_are_not(batch):
    assert workspace(batch, "honest")["katas"][0]["review"] == []
    assert all(workspace(batch, name)["katas"][0]["review"] for name in ATTACKS)


# --- the trusted side around the walls (issue 20): each attack refused, each with its control ---------------

def test_no_sandbox_file_outlives_the_batch_and_the_disk_filler_filled_nothing(batch):
    """The disk filler wrote into its own tmpfs (a few MiB at most, freed with it): it failed, the honest
    candidates beside it passed, and every child's mount point is gone."""
    assert status(batch, "disk_filler") == "failed", workspace(batch, "disk_filler")
    assert status(batch, "honest") == status(batch, "honest_too") == "passed"
    assert list((batch["here"] / "sandboxes").iterdir()) == []


def _in_a_small_tmpfs(code, megabytes=64):
    """Run `code` in a process of its own user and mount namespaces, its folder a tmpfs of `megabytes`:
    whatever it writes cannot reach this machine's disk. Its printed JSON, or a skip where namespaces fail."""
    script = f"""
import ctypes, json, os, sys, tempfile
libc = ctypes.CDLL(None, use_errno=True)
uid, gid = os.getuid(), os.getgid()
if libc.unshare(0x10000000 | 0x00020000) != 0:
    print(json.dumps({{"skip": os.strerror(ctypes.get_errno())}})); sys.exit()
for name, text in (("uid_map", f"{{uid}} {{uid}} 1"), ("setgroups", "deny"), ("gid_map", f"{{gid}} {{gid}} 1")):
    open(f"/proc/self/{{name}}", "w").write(text)
top = tempfile.mkdtemp()
libc.mount(None, b"/", None, (1 << 14) | (1 << 18), None)
if libc.mount(b"test", top.encode(), b"tmpfs", 0, b"size={megabytes}m") != 0:
    print(json.dumps({{"skip": os.strerror(ctypes.get_errno())}})); sys.exit()
{code}
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    found = json.loads(done.stdout or "{}")
    if "skip" in found or not found:
        pytest.skip(f"no private mount namespace here: {found.get('skip', done.stderr[-200:])}")
    return found


def test_the_disk_fill_works_outside_the_grader():
    """The control: in a plain process (on a 64 MiB tmpfs made for the test) the fill writes its 48 MiB, and
    shutil.rmtree(ignore_errors=True), the clean-up the grader used, leaves it there (RecursionError)."""
    found = _in_a_small_tmpfs(DISK_FILL + """
import shutil
worked = fill(top)
try:
    shutil.rmtree(os.path.join(top, "d"), ignore_errors=True)
    raised = None
except RecursionError as error:
    raised = type(error).__name__
print(json.dumps({"worked": worked, "raised": raised, "left": os.path.exists(os.path.join(top, "d"))}))
""")
    assert found == {"worked": True, "raised": "RecursionError", "left": True}


def test_forged_figures_fail_in_the_grader(batch):
    check = next(c for c in workspace(batch, "forger")["katas"] if c["kata"] == "08")
    assert check["status"] == "failed" and check["bugs"] == ["materializes-scores"], check


@pytest.mark.parametrize("kata_id, bug", [("05", "recompute-every-step"), ("08", "materializes-scores")])
def test_forged_figures_fail_in_kata_check(tmp_path, kata_id, bug):
    from conftest import checked

    kata = catalog.find(kata_id)
    path = tmp_path / kata.filename
    path.write_text(forger(kata_id))
    result = checked(kata, path)
    assert result.status.value == "failed" and bug in result.bugs, [t.message for t in result.tests]
    assert not hasattr(result, "unverified")  # every figure is the kernel's: nothing to mark


def test_forging_works_on_the_figures_a_process_reports_about_itself(tmp_path):
    """The control: beside the child's server (`worker`, as in the child), the forger's module rewrites the
    figures that process would report: had the parent taken them, the forgery would have passed."""
    (tmp_path / "forger.py").write_text(FORGE)
    code = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; import worker, forger, json\n"
            "print(json.dumps(worker._measured(lambda: sum(range(10**6)))[1]))")
    done = subprocess.run([sys.executable, "-c", code, str(catalog.ROOT / "checker" / "sandbox"), str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout) == {"cpu_seconds": 0.0, "peak_bytes": 0, "weight_work": 0}, done.stderr


SWAPPER = """
import os, sys, time

def attention_scores(kind):
    path = __file__  # the child's private copy, in its tmpfs
    os.unlink(path)
    if kind == "fifo":
        try:
            os.mkfifo(path)
        except OSError:  # the sandbox's allow-list refuses mknod: the copy is simply gone, as good a test
            pass
    else:
        os.symlink("/dev/zero" if kind == "zero" else "/etc/passwd", path)
    print(f'Thread 0x1 (most recent call first):\\n  File "{path}", line 1 in attention_scores', flush=True)
    while True:  # a time-out: the parent samples the stack
        time.sleep(0.01)
"""


def test_a_swapped_private_copy_is_never_read_back(tmp_path):
    """On a time-out the parent takes the stack from the child's output and the code from the bytes it kept:
    a FIFO (a hang), a link to /dev/zero (a balloon) or to /etc/passwd (a leak) in its place changes nothing."""
    import resource
    from concurrent.futures import ThreadPoolExecutor

    from checker.sandbox import Limits, Sandbox, Timeout

    path = tmp_path / "01_scores.py"
    path.write_text(SWAPPER)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def timed_out(kind):
        with Sandbox(path, Limits(seconds=2)) as box:
            box.load(["attention_scores"])
            with pytest.raises(Timeout) as stopped:
                box.call("attention_scores", (kind,))
            return stopped.value.frames, box.output()

    started = time.monotonic()
    with ThreadPoolExecutor(3) as pool:
        found = dict(zip(("fifo", "zero", "link"), pool.map(timed_out, ("fifo", "zero", "link"))))
    assert time.monotonic() - started < 20  # no hang
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 256 * 1024  # KiB: no balloon
    passwd = open("/etc/passwd").readline().strip()
    for kind, (frames, printed) in found.items():
        assert frames[-1][2] in ("time.sleep(0.01)", "while True:  # a time-out: the parent samples the stack")
        assert all(code in SWAPPER for _, _, code in frames) and passwd not in str(frames) + printed, kind


def test_reading_a_swapped_copy_back_hangs_balloons_or_leaks(tmp_path):
    """The control: the grader's old read-back, the private copy read by path, on each swap."""
    import threading

    fifo, zero, link = tmp_path / "fifo.py", tmp_path / "zero.py", tmp_path / "link.py"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    link.symlink_to("/etc/passwd")
    reader = threading.Thread(target=lambda: open(fifo).read(), daemon=True)
    reader.start()
    reader.join(0.5)
    assert reader.is_alive()  # blocked on the FIFO: it waits for ever for a writer
    with open(fifo, "w"):
        pass  # let it go
    with open(zero, "rb") as endless:
        assert len(endless.read(64 * 2**20)) == 64 * 2**20  # as much as asked for, without end
    assert link.read_text().splitlines()[0] == open("/etc/passwd").readline().strip()


def test_one_answer_is_bounded_as_a_whole(batch):
    """2,048 arrays of 1 MiB in one answer: refused on its header, one error row, the batch goes on."""
    check = workspace(batch, "many_blobs")["katas"][0]
    assert check["status"] == "error" and "more than the" in check["tests"][0]["message"], check
    assert f"{2048 * 2**20 + 1:,}"[:5] in check["tests"][0]["message"]  # the whole answer's size, said


def test_each_piece_of_the_many_blobs_passes_a_per_piece_bound():
    """The control: the same answer's header, read beside the child's server: every piece is under 16 MiB
    (a per-piece bound lets it all through), the whole is 2 GiB."""
    code = ("import io, sys; sys.path[:0] = [sys.argv[1]]; import json, struct, worker\n"
            f"exec({MANY_BLOBS!r})\n"
            "class Head(io.RawIOBase):\n"
            "    def __init__(self): self.data = b''\n"
            "    def write(self, b):\n"
            "        self.data += bytes(b[:1 << 20]) if len(self.data) < 1 << 20 else b''\n"
            "        return len(b)\n"
            "head = Head(); worker.send(head, {'ok': {'a': 0}})\n"
            "size = struct.unpack('>Q', head.data[:8])[0]\n"
            "print(json.dumps(json.loads(head.data[8:8 + size])['blobs']))")
    done = subprocess.run([sys.executable, "-c", code, str(catalog.ROOT / "checker" / "sandbox")],
                          capture_output=True, text=True, timeout=60)
    sizes = json.loads(done.stdout)
    assert len(sizes) == 2048 and max(sizes) <= 16 * 2**20 and sum(sizes) == 2**31, done.stderr


KILLED = """
import os, signal

def spin():
    while True:
        pass

def killed():
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_cpu_limit_kill_is_told_apart_from_other_kills(tmp_path):
    from checker.sandbox import Died, Limits, Sandbox

    path = tmp_path / "learner.py"
    path.write_text(KILLED)
    said = {}
    for name in ("spin", "killed"):
        with Sandbox(path, Limits(seconds=30, cpu_seconds=1)) as box:
            box.load([name])
            with pytest.raises(Died) as died:
                box.call(name)
            said[name] = str(died.value)
    assert "used up its CPU time limit (1 s of CPU" in said["spin"] and "memory" not in said["spin"]
    assert "SIGKILL" in said["killed"] and "CPU time to spare" in said["killed"]


def test_a_cpu_limit_with_no_room_ends_in_sigkill():
    """The control: a CPU limit whose soft and hard values are one (as the sandbox had it) ends a spinning
    process with SIGKILL, the signal an out-of-memory kill sends, so the old message blamed memory."""
    code = ("import resource; resource.setrlimit(resource.RLIMIT_CPU, (1, 1))\nwhile True:\n    pass")
    done = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert done.returncode == -signal.SIGKILL


def test_a_full_disk_is_the_batchs_error_never_a_candidates(batch, monkeypatch):
    """Should the grader's own machine fail the sandbox (no room for a child's output), the batch stops with
    that said; no candidate gets an error row for it."""
    import errno

    from checker.sandbox import box, wire

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    from checker.hiring import grade as grading

    monkeypatch.chdir(batch["here"])
    monkeypatch.setattr(box, "_output_file", full)  # the grade workers are forked: they inherit it
    probe = grading.probe_isolation
    for probed in (probe, lambda limits: {"applied": list(wire.FULL_ISOLATION), "missing": {}, "level": "full"}):
        monkeypatch.setattr(grading, "probe_isolation", probed)  # the grader's own probe fails first, else a worker
        stopped = run("grade", "honest", "--report", "full.md")
        assert stopped.exit_code != 0 and "No space left on device" in stopped.output, stopped.output
        assert "no learner's doing" in stopped.output and not (batch["here"] / "full.md").exists()
        state = batch["here"] / "full.md.state.jsonl"
        assert not state.exists() or "honest" not in state.read_text()  # no error row saved for the candidate

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

from checker import catalog
from checker.cli import cli
from checker.catalog import MANIFEST, ROSTER


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
    "    right =", "    q, k = np.asarray(q), np.asarray(k)\n    right =")

# name -> the body of `attack(target)`: True when it worked. `target` is what it aims at (a path, a port,
# a pid); in the batch it is the real thing, outside the grader a stand-in of the same kind.
ATTACKS = {
    "read_reference": "return 'def attention_scores' in open(target).read()",
    "import_the_checker": "from checker import catalog\n    return catalog.find('01').solution_path.is_file()",
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
        for name in ("honest", "honest_too", "forked", "relinked", "linked_out", "liar", *ATTACKS):
            katas = "01,03" if name == "liar" else "01"
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
    assert set(isolation.restrict([], [])[1]) | {"user-namespace", "network-namespace"} == set(isolation.FULL)


def test_the_parent_knows_every_wall_the_child_applies():
    from checker.sandbox import isolation, wire

    assert wire.FULL_ISOLATION == isolation.FULL
    assert isolation.seccomp_program("x86_64") and isolation.seccomp_program("aarch64")
    assert isolation.seccomp_program("sparc") is None


def test_kata_05_cost_figures_are_marked_unverified():
    from conftest import checked

    kata = catalog.find("05")
    result = checked(kata, kata.solution_path)
    assert result.status.value == "passed" and result.unverified  # the cost checks took the child's own counts


def test_review_flags_reaching_beyond_numpy_without_failing():
    from checker.hiring import review

    assert review.reasons(SOLUTION.read_text()) == []
    flagged = review.reasons("import os, numpy as np\nimport math\nx = open('f')\ny = np.load('a')\nz = f.__globals__\n")
    assert set(flagged) == {"imports os", "calls open()", "uses np.load (file input/output)", "uses .__globals__"}


def test_attackers_are_flagged_for_review_and_honest_candidates_are_not(batch):
    assert workspace(batch, "honest")["katas"][0]["review"] == []
    assert all(workspace(batch, name)["katas"][0]["review"] for name in ATTACKS)

"""A hiring round as a small company runs one: eight candidates on katas 05, 08, 10 and 12 (60 minutes, weights
05=3, 08=3, 10=2, 12=2), returned as zips, graded once for the module; what the ranking, the Markdown and the
JSON say of each. Plus the round's edges: PyTorch without torch, zips that attack, a grade stopped by SIGTERM.
"""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import zipfile

import pytest
from click.testing import CliRunner

from checker.engine import catalog
from checker.engine.catalog import MANIFEST, ROSTER
from checker.cli import cli
from conftest import HOSTILE, SLOW_ON_BIG, ZOO

HAS_TORCH = importlib.util.find_spec("torch") is not None
KATAS = "05,08,10,12"
NAMES = ("strong", "subtle", "torchuser", "copier", "outoftime", "halfdebug", "cheat", "slow")
CHEAT_HEAD = """import numpy as np
print("PASSED  19 of 19 checks passed")
np.allclose = lambda *args, **kwargs: True
np.array_equal = lambda *args, **kwargs: True
"""


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def _solution(kata_id):
    from checker.hidden.debug import plants

    kata = catalog.find(kata_id)
    return plants.source_with([]) if kata_id == "10" else kata.solution_path.read_text()


def _renamed(source, kata_id, seed):
    import copies

    return copies.make(source, "renamed", seed, set(catalog.find(kata_id).hidden().API))


def _correct(kata_id, name):
    return (catalog.find(kata_id).folder / "correct" / name).read_text()


def _answers(seed):
    """{candidate: {kata id: source}}, written as eight different people would."""
    from checker.hidden.debug import plants
    from checker.engine.runner import DEFAULT_SEED

    planted = list(plants.planted(seed, DEFAULT_SEED))
    strong = {kata_id: _solution(kata_id) for kata_id in KATAS.split(",")}
    torch_files = {"05": (catalog.find("05").folder / "torch" / "correct.py").read_text(),
                   "08": (catalog.find("08").folder / "torch" / "correct.py").read_text()} if HAS_TORCH else {}
    subtle = {"05": (ZOO / "kv_cache" / "mask-top-left.py").read_text(), "08": _correct("08", "logsumexp_state.py"),
              "10": strong["10"], "12": _correct("12", "heap.py")}
    other = {"05": _correct("05", "einsum.py"), "08": _correct("08", "query_blocks_einsum.py"), "10": strong["10"],
             "12": _correct("12", "sorted_lists.py")}
    return {"strong": strong, "subtle": subtle,
            "torchuser": {**other, **torch_files},
            "copier": {kata_id: _renamed(source, kata_id, n) if kata_id != "10" else source
                       for n, (kata_id, source) in enumerate(strong.items())},
            "outoftime": {"05": _correct("05", "loop_heads.py"), "08": _correct("08", "padded_last_block.py")},
            "halfdebug": {**other, "05": _correct("05", "doubling_buffer.py"), "10": plants.source_with(planted[2:])},
            "cheat": {kata_id: CHEAT_HEAD + source for kata_id, source in strong.items()},
            "slow": {**other, "08": _correct("08", "float32_normalised.py") + SLOW_ON_BIG}}, planted


@pytest.fixture(scope="module")
def round_(tmp_path_factory):
    """The round packed, answered, zipped (the cheat's manifest edited to 240 minutes), graded once."""
    here = tmp_path_factory.mktemp("round")
    old = os.getcwd()
    os.chdir(here)
    os.environ["NO_COLOR"] = "1"
    try:
        for name in NAMES:
            made = run("pack", f"interviews/{name}", "--katas", KATAS, "--seed", 7, "--minutes", 60,
                       "--weights", "05=3,08=3,10=2,12=2", "--allow", "torch")
            assert made.exit_code == 0, made.output
        answers, planted = _answers(7)
        issued = {json.loads(line)["folder"]: json.loads(line)["made"]
                  for line in (here / "interviews" / ROSTER).read_text().splitlines()}
        import datetime

        for name, files in answers.items():
            folder = here / "interviews" / name
            start = datetime.datetime.fromisoformat(issued[name]).timestamp()
            minutes = (70, 74, 77, 80) if name == "outoftime" else (50, 53, 56, 59)  # files land at these minutes
            for n, kata_id in enumerate(KATAS.split(",")):
                path = folder / "katas" / catalog.find(kata_id).filename
                if kata_id in files:
                    path.write_text(files[kata_id])
                os.utime(path, (start + 60 * minutes[n], start + 60 * minutes[n]))
        manifest = json.loads((here / "interviews" / "cheat" / MANIFEST).read_text())
        (here / "interviews" / "cheat" / MANIFEST).write_text(json.dumps({**manifest, "minutes": 240}))
        (here / "returned").mkdir()
        for name in NAMES:  # as candidates return them: a zip holding their folder
            with zipfile.ZipFile(here / "returned" / f"{name}.zip", "w") as archive:
                for path in sorted((here / "interviews" / name).rglob("*")):
                    info = zipfile.ZipInfo.from_file(path, f"{name}/{path.relative_to(here / 'interviews' / name)}")
                    archive.writestr(info, path.read_bytes() if path.is_file() else b"")
        zips = [f"returned/{name}.zip" for name in NAMES]
        text = run("grade", *zips, "--roster", "interviews/" + ROSTER, "--jobs", 2, "--report", "grades.md")
        assert text.exit_code == 0, text.output
        markdown = (here / "grades.md").read_text()
        data = run("grade", *zips, "--roster", "interviews/" + ROSTER, "--report", "grades.md", "--resume", "--json")
        assert data.exit_code == 0, data.output
        yield {"here": here, "text": text.output, "json": json.loads(data.stdout), "planted": planted,
               "markdown": markdown}
    finally:
        os.chdir(old)
        os.environ.pop("NO_COLOR", None)


def _by_name(round_):
    return {w["roster"]["folder"]: w for w in round_["json"]["workspaces"]}


def test_print_the_round(round_):  # the closing note's figures: the terminal ranking and the Markdown's first screen
    print(round_["text"])
    print("\n".join(round_["markdown"].splitlines()[:45]))


def test_a_cheat_with_working_code_ranks_after_every_clean_candidate(round_):
    workspaces = _by_name(round_)
    cheat = workspaces["cheat"]
    assert cheat["score"] >= workspaces["strong"]["score"] - 1  # the control: by score alone it ties for first
    clean = [w for name, w in workspaces.items() if not w["held"]]
    assert cheat["held"] and all(w["rank"] < cheat["rank"] for w in clean)
    markdown = round_["markdown"]
    assert markdown.index("## Integrity") < markdown.index("## Ranking")
    assert "cheat" in markdown[markdown.index("## Integrity"):markdown.index("## Ranking")]
    line = next(line for line in round_["text"].splitlines() if " cheat " in line and "." in line[:5])
    assert line.split("cheat", 1)[1].lstrip().startswith("HELD: tampering")  # said first on its line


def test_a_changed_manifest_and_printed_verdicts_are_tampering(round_):
    cheat = _by_name(round_)["cheat"]
    held = " ".join(cheat["held"])
    assert "minutes 240 (issued: 60)" in held
    assert "prints what looks like the checker's own verdict" in held and "PASSED  19 of 19" in held
    assert cheat["time"]["minutes"] == 60  # graded on the roster, not the edit
    assert not _by_name(round_)["strong"]["held"]  # the control: the same files without the edits raise nothing


def test_zips_are_unpacked_and_rows_name_the_roster_candidate(round_):
    for name, workspace in _by_name(round_).items():
        assert any(flag.startswith(f"unpacked from returned/{name}.zip") for flag in workspace["flags"]), name
        assert workspace["name"] == name
    assert "| strong |" in round_["markdown"] or "| strong " in round_["markdown"]


def test_kata_08_kinds_and_kata_10_plants_in_the_report(round_):
    workspaces, markdown = _by_name(round_), round_["markdown"]
    slow = next(k for k in workspaces["slow"]["katas"] if k["kata"] == "08")
    assert slow["slow"].startswith("correct, too slow for the limit") and 0 < slow["score"] < 100
    half = next(k for k in workspaces["halfdebug"]["katas"] if k["kata"] == "10")
    assert half["plants"]["fixed"] == round_["planted"][:2] and half["score"] == 50
    assert "2 of 4 planted bugs fixed" in markdown and "correct, too slow for the limit" in markdown


def test_the_markdown_explains_ids_weights_and_keeps_hashes_apart(round_):
    markdown = round_["markdown"]
    from checker.present import escape
    from checker.engine import prompts

    assert "## What the bug names mean" in markdown
    # What the mistake is, in kata 05's own catalogue line, then its fix.
    means = prompts.means_of("mask-top-left", "kv-cache")
    assert means.startswith("top-left causal mask") and means != prompts.means_of("mask-top-left", "causal-mask")
    assert f"`mask-top-left` (kata 05): {escape.markdown(means)}; the fix: " in markdown
    assert "Weights: 05 ×3, 08 ×3, 10 ×2, 12 ×2" in markdown
    first_screen = markdown[:markdown.index("## Candidates")]
    assert "sha256" not in first_screen.lower() and "## Appendix: file hashes" in markdown


def test_time_shows_the_spread_and_cpu_is_the_kernels(round_):
    workspaces, text = _by_name(round_), round_["text"]
    first, last = workspaces["strong"]["time"]["spread"]  # a zip keeps times to 2 s
    assert abs(first - 50 * 60) <= 2 and abs(last - 59 * 60) <= 2
    assert "files 50–59 min" in round_["markdown"]
    cpu = next(line for line in text.splitlines() if line.startswith("CPU: "))
    own, children = [float(word) for word in cpu.replace("(", " ").split() if word.replace(".", "").isdigit()][1:3]
    assert children > own  # the sandboxes did the work: the grader's own process is the smaller part


def test_a_torch_file_without_torch_is_refused_in_one_line(tmp_path, monkeypatch):
    from checker.hiring import grade as grading

    monkeypatch.chdir(tmp_path)
    assert run("pack", "ada", "--katas", "01,03", "--seed", 3, "--allow", "torch").exit_code == 0
    (tmp_path / "ada" / "katas" / "01_scores.py").write_text("import torch\n\n\ndef attention_scores(q, k):\n"
                                                             "    return q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5\n")
    (tmp_path / "ada" / "katas" / "03_causal_mask.py").write_text(catalog.find("03").solution_path.read_text())
    opened = [grading.open_workspace(tmp_path / "ada")]
    assert grading.needs_torch(opened) == ([] if HAS_TORCH else [(opened[0], "01")])  # the control: this machine
    monkeypatch.setattr(grading, "torch_available", lambda: False)
    refused = run("grade", "ada", "--timeout", 5)
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1, refused.output
    assert refused.output.startswith("Error: torch is needed") and "pip install" in refused.output
    went_on = run("grade", "ada", "--timeout", 5, "--without-torch", "--json")
    assert went_on.exit_code == 0, went_on.output
    ada = json.loads(went_on.stdout)["workspaces"][0]
    scores = {k["kata"]: k for k in ada["katas"]}
    assert scores["01"]["grader_missing"] == "torch" and scores["01"]["bugs"] == []
    assert ada["score"] == 100 and "not installed on the grader" in ada["summary"]  # never the candidate's error


def _zip(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            archive.writestr(info, data)


def test_returned_zips_that_attack_are_refused_with_what_was_expected(tmp_path, monkeypatch):
    import stat

    from checker.hiring import returned

    monkeypatch.chdir(tmp_path)
    _zip(tmp_path / "escape.zip", [("ada/../../outside.py", b"x = 1\n", stat.S_IFREG | 0o644)])
    _zip(tmp_path / "link.zip", [("ada/katas/01_scores.py", b"/etc/passwd", stat.S_IFLNK | 0o777)])
    _zip(tmp_path / "many.zip", [(f"ada/{n}.txt", b"", stat.S_IFREG | 0o644)
                                 for n in range(returned.ZIP_MEMBERS + 1)])
    _zip(tmp_path / "big.zip", [("ada/katas/01_scores.py", b"#" * (returned.ZIP_BYTES + 1), stat.S_IFREG | 0o644)])
    (tmp_path / "plain").mkdir()  # the control: unzip, as a person would run it, does make the link
    subprocess.run(["unzip", "-q", str(tmp_path / "link.zip"), "-d", str(tmp_path / "plain")], check=False)
    assert os.path.islink(tmp_path / "plain" / "ada" / "katas" / "01_scores.py")
    result = run("grade", "escape.zip", "link.zip", "many.zip", "big.zip", "--json", "--insecure")
    assert result.exit_code == 0, result.output
    errors = {os.path.basename(w["path"]): w["error"] for w in json.loads(result.stdout)["workspaces"]}
    assert "points outside" in errors["escape.zip"] and "link or a device" in errors["link.zip"]
    assert "more than 500" in errors["many.zip"] and "more than 64 MiB" in errors["big.zip"]
    assert all(returned.EXPECTED in error for error in errors.values())
    assert not (tmp_path / "outside.py").exists() and not (tmp_path.parent / "outside.py").exists()


def test_a_workspace_one_level_down_is_found_and_the_row_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("pack", "ada", "--katas", "01", "--seed", 3).exit_code == 0
    (tmp_path / "ada" / "katas" / "01_scores.py").write_text(catalog.find("01").solution_path.read_text())
    (tmp_path / "returned" / "ada").mkdir(parents=True)
    os.rename(tmp_path / "ada", tmp_path / "returned" / "ada" / "ada")  # what `unzip ada.zip -d returned/ada` makes
    result = run("grade", "returned/ada", "--roster", ROSTER, "--json")
    ada = json.loads(result.stdout)["workspaces"][0]
    assert ada["score"] == 100 and any(flag.startswith("found one level down") for flag in ada["flags"])
    (tmp_path / "returned" / "empty").mkdir()
    error = json.loads(run("grade", "returned/empty", "--json").stdout)["workspaces"][0]["error"]
    assert "has no katas/ folder" in error and "kata-pack.json and katas/" in error


def _descendants(pid):
    """Every live process whose parent chain reaches `pid`."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        children = [child for child, ppid in parents.items() if ppid == parent and child not in found]
        found.update(children)
        todo += children
    return found


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("signum", [signal.SIGTERM])
def test_sigterm_on_a_grade_ends_every_process_it_started(tmp_path, signum):
    for name in ("solved", "looping"):
        assert CliRunner().invoke(cli, ["pack", str(tmp_path / name), "--katas", "01", "--seed", 3]).exit_code == 0
    (tmp_path / "solved" / "katas" / "01_scores.py").write_text(catalog.find("01").solution_path.read_text())
    (tmp_path / "looping" / "katas" / "01_scores.py").write_text((HOSTILE / "loop_forever.py").read_text())
    env = {**os.environ, "PYTHONPATH": str(catalog.ROOT), "NO_COLOR": "1"}
    grade = subprocess.Popen([sys.executable, "-m", "checker", "grade", "looping", "solved", "--timeout", "60",
                              "--jobs", "2"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    seen, deadline = set(), time.monotonic() + 60
    while time.monotonic() < deadline and len(seen) < 4:  # the workers and their sandboxes (or zygotes)
        seen |= _descendants(grade.pid)
        time.sleep(0.2)
    time.sleep(1)
    seen |= _descendants(grade.pid)
    assert len(seen) >= 3 and grade.poll() is None, seen  # the control: it was grading, with its processes
    grade.send_signal(signum)
    out, err = grade.communicate(timeout=30)
    time.sleep(0.5)
    assert grade.returncode == 130, err
    assert [pid for pid in seen if _alive(pid)] == [], "a process the grade started outlived it"
    assert "SIGTERM" in err and "--resume" in err
    state = [json.loads(line)["entry"] for line in (tmp_path / "kata-grade.state.jsonl").read_text().splitlines()]
    assert state[-1]["interrupted"] == "SIGTERM"
    resumed = subprocess.run([sys.executable, "-m", "checker", "grade", "looping", "solved", "--timeout", "1",
                              "--resume", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert {w["path"]: w["katas"][0]["status"] for w in json.loads(resumed.stdout)["workspaces"]} == \
        {"looping": "timeout", "solved": "passed"}

"""`kata pack` and `kata grade`: what a candidate gets (and never gets), and grading a batch of them."""

import ast
import hashlib
import os
import json
import keyword
import re
import shutil
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from checker.engine import catalog, prompts
from checker.cli import cli
from checker.hiring.grade import DEFAULT_STATE
from checker.hiring import pack_words
from checker.hiring.pack import MANIFEST
from checker.engine.runner import DEFAULT_SEED
from checker.engine.workspace import pristine_stub
from conftest import HOSTILE, ZOO

KATAS = catalog.all_katas()
SECRET_PARTS = ("tests.py", "variants.py", "quiz.py")  # of a kata's folder: public.py is copied into check.py


def hidden_files():
    """Every kata's hidden tests, variants and quiz answers."""
    return [kata.folder / part for kata in KATAS for part in SECRET_PARTS if (kata.folder / part).is_file()]


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def make_pack(folder, *options):
    result = run("pack", folder, *options)
    assert result.exit_code == 0, result.output
    return folder


def pack_files(folder):
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def fill(folder, kata_id, source):
    kata = catalog.find(kata_id)
    shutil.copy(source, folder / "katas" / kata.filename)


@pytest.fixture
def here(tmp_path, monkeypatch):
    """tmp_path as the current folder, so state files and reports stay in it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


# --- kata pack --------------------------------------------------------------------------------------

def test_pack_holds_stubs_readme_checks_and_manifest(here):
    folder = make_pack(here / "ada", "--katas", "5,01,kv-cache,03", "--seed", 41)
    files = pack_files(folder)
    chosen = [catalog.find(key) for key in ("01", "03", "05")]
    assert set(files) == {"README.md", "check.py", MANIFEST} | {f"katas/{kata.filename}" for kata in chosen}
    for kata in chosen:  # kata 05's "as in kata 04" is reworded: the pack does not hold 04
        assert files[f"katas/{kata.filename}"] == pack_words.for_pack(pristine_stub(kata), chosen).encode()
    assert files["katas/05_kv_cache.py"] != pristine_stub(catalog.find("05")).encode()
    manifest = json.loads(files[MANIFEST])
    assert manifest["katas"] == ["01", "03", "05"] and manifest["seed"] == 41 and manifest["minutes"] == 60
    readme = files["README.md"].decode()
    assert "60 minutes" in readme and "python check.py" in readme and "Rules" in readme
    assert all(f"katas/{kata.filename}" in readme for kata in chosen)


def test_pack_takes_the_committed_stubs_not_edited_ones(here, monkeypatch):
    edited = here / "edited.py"
    edited.write_text("def attention_scores(q, k):\n    return 'my answer'\n")
    monkeypatch.setattr(catalog.Kata, "stub_path", property(lambda kata: edited))
    folder = make_pack(here / "ada", "--katas", "01", "--seed", 1)
    assert "my answer" not in (folder / "katas" / "01_scores.py").read_text()
    assert "raise NotImplementedError" in (folder / "katas" / "01_scores.py").read_text()


def _lines(text):
    return {line.strip() for line in text.splitlines()}


def _secret_lines(katas, exempt=""):
    """Every line of real solution code (not in any stub: every learner holds those, nor in `exempt`) and
    every telling line of the hidden tests."""
    stub_lines = set().union(*(_lines(kata.stub_path.read_text()) for kata in KATAS))
    secrets = set()
    for kata in katas:
        secrets |= _lines(kata.solution_path.read_text()) - stub_lines - _lines(exempt)
    for path in hidden_files():
        secrets |= {line for line in _lines(path.read_text()) - stub_lines if len(line) >= 30}
    # a bare keyword (`break`, `else:`) is in any Python file, check.py included: no secret
    return sorted(line for line in secrets if re.search(r"[A-Za-z0-9]", line) and line != '"""'
                  and not keyword.iskeyword(line.rstrip(":")))


def _catalogue_and_quiz():
    """Bug ids, their fixes, and the fixed text of every quiz question, explanation and choice (but for
    the phrases the stubs' docstrings hold: those are public)."""
    stubs = "\n".join(kata.stub_path.read_text() for kata in KATAS)
    bug_ids, texts = [], []
    for kata in KATAS:
        entry = prompts.for_kata(kata)
        bug_ids += list(entry.fixes)
        texts += list(entry.fixes.values())
        for question in entry.questions:
            pieces = [question.prompt, question.explanation] + [str(c["text"]) for c in question.choices]
            texts += [part.strip() for piece in pieces for part in re.split(r"\{[^}]*\}", piece)
                      if len(part.strip()) >= 20]
    return bug_ids + [text for text in texts if text not in stubs]


def _leaks(folder, katas, exempt=""):
    files = pack_files(folder)
    text = "\n".join(data.decode() for data in files.values())
    assert not any(name.startswith("solutions") for name in files)
    hidden = {path.read_bytes() for path in hidden_files()}
    assert not hidden & set(files.values())
    return [secret for secret in _secret_lines(katas, exempt) + _catalogue_and_quiz() if secret in text]


@pytest.mark.parametrize("keys", [kata.id for kata in KATAS] + [",".join(kata.id for kata in KATAS)])
def test_pack_leaks_no_solution_hidden_test_bug_or_quiz_answer(here, keys):
    folder = make_pack(here / "ada", "--katas", keys, "--seed", 3)
    katas = [catalog.find(key) for key in keys.split(",")]
    # a stub planted by the pack's seed (kata 10) is the reference but for its plants: public by design
    planted = "\n".join((folder / "katas" / kata.filename).read_text() for kata in katas
                        if getattr(kata.hidden(), "STUB_PLANTED", False))
    assert _leaks(folder, katas, exempt=planted) == []


def test_the_leak_detector_finds_a_reference_slipped_into_a_pack(here):
    folder = make_pack(here / "ada", "--katas", "03", "--seed", 3)
    kata = catalog.find("03")
    with (folder / "README.md").open("a") as readme:
        readme.write(kata.solution_path.read_text().splitlines()[-3] + "\nmask-top-left\n")
    assert set(_leaks(folder, [kata])) == {kata.solution_path.read_text().splitlines()[-3].strip(), "mask-top-left"}


def test_a_stub_that_gives_another_katas_functions_is_packed_with_a_warning(here):
    # kata 05's stub hands out a working softmax, split_heads and merge_heads; kata 04 asks for them
    result = run("pack", here / "ada", "--katas", "04,05", "--seed", 3)
    assert result.exit_code == 0
    assert "warning: katas/05_kv_cache.py gives a working" in result.stderr
    assert "split_heads() (kata 04 asks for it)" in result.stderr and "pack 05 apart from 04" in result.stderr
    given = catalog.find("05").stub_path.read_text()  # public anyway: every learner's stub holds it
    assert _leaks(here / "ada", [catalog.find("04"), catalog.find("05")], exempt=given) == []
    assert "warning" not in run("pack", here / "bob", "--katas", "01,03,05", "--seed", 3).stderr


def test_check_script_needs_numpy_only(here):
    tree = ast.parse(pack_files(make_pack(here / "ada", "--seed", 1))["check.py"])
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"doctest", "importlib", "json", "queue", "subprocess", "sys", "threading", "time",
                        "traceback", "pathlib", "numpy"}


def test_same_seed_same_bytes_but_the_pack_id(here):
    first = pack_files(make_pack(here / "one", "--katas", "01,04", "--seed", 7))
    second = pack_files(make_pack(here / "two", "--katas", "01,04", "--seed", 7))
    ids = [json.loads(files.pop(MANIFEST)) for files in (first, second)]
    assert first == second
    assert ids[0]["pack"] != ids[1]["pack"] and ids[0]["seal"] != ids[1]["seal"]
    assert {**ids[0], "pack": "", "seal": ""} == {**ids[1], "pack": "", "seal": ""}


def test_different_seeds_different_shapes(here):
    """The seed draws the shapes; the stubs stay the committed ones, but for a kata that plants bugs by seed."""
    first = pack_files(make_pack(here / "one", "--seed", 7))
    second = pack_files(make_pack(here / "two", "--seed", 8))
    assert first["check.py"] != second["check.py"]
    by_seed = {f"katas/{kata.filename}" for kata in KATAS if hasattr(kata.part("public"), "stub")}
    for name in (name for name in first if name.startswith("katas/")):
        assert (first[name] != second[name]) == (name in by_seed), name


def test_a_kata_keeps_its_shapes_whatever_else_is_packed(here):
    alone = pack_files(make_pack(here / "one", "--katas", "03", "--seed", 7))["check.py"].decode()
    together = pack_files(make_pack(here / "two", "--seed", 7))["check.py"].decode()
    shapes = re.search(r'^    "03": .*$', alone, re.M).group()
    assert shapes in together


def _check_script(folder, *args):
    return subprocess.run([sys.executable, "check.py", *args], cwd=folder, capture_output=True, text=True, timeout=60)


def test_check_script_on_stubs_then_references(here):
    folder = make_pack(here / "ada", "--seed", 11)
    done = _check_script(folder)
    assert done.returncode == 1, done.stderr
    planted = [kata for kata in KATAS if getattr(kata.hidden(), "STUB_PLANTED", False)]  # runs, wrong
    assert done.stdout.count("not implemented yet") == len(KATAS) - len(planted)
    for kata in KATAS:
        fill(folder, kata.id, kata.solution_path)
    done = _check_script(folder)
    assert done.returncode == 0, done.stdout + done.stderr
    for kata in KATAS:  # a planted file runs with its bugs: check.py cannot tell they are gone, and says so
        verdict = "shapes ok" if getattr(kata.hidden(), "STUB_PLANTED", False) else "ok"
        assert f"{kata.id} {kata.slug:<12} {verdict}: " in done.stdout, kata


def test_check_script_says_the_graders_limit_and_times_each_kata(here):
    from checker.sandbox import DEFAULT_SECONDS

    folder = make_pack(here / "ada", "--katas", "01,03", "--seed", 11)
    fill(folder, "01", catalog.find("01").solution_path)
    slow = catalog.find("03")  # right, but each call sleeps: far too slow for the graders' limit
    (folder / "katas" / slow.filename).write_text(slow.solution_path.read_text() + (
        "\n\nimport time as _t\n_fast = attention\n\n\ndef attention(q, k, v, mask=None):\n"
        f"    _t.sleep({DEFAULT_SECONDS / 4 / 2})\n    return _fast(q, k, v, mask)\n"))
    said = _check_script(folder)
    assert re.search(r"01 scores +ok: .* \[\d+\.\d s\]", said.stdout), said.stdout
    assert re.search(rf"03 causal-mask +SLOW: right shapes, but .* within {DEFAULT_SECONDS:g} s in all", said.stdout)
    assert f"stop each kata after {DEFAULT_SECONDS:g} s in all" in said.stdout and said.returncode == 1
    assert f"after {DEFAULT_SECONDS:g} s in all" in (folder / "README.md").read_text()


def test_a_pack_says_which_languages_the_round_accepts(here):
    numpy_only = make_pack(here / "ada", "--katas", "01", "--seed", 3)
    both = make_pack(here / "bob", "--katas", "01", "--seed", 3, "--allow", "torch")
    assert "NumPy only: no PyTorch" in (numpy_only / "README.md").read_text()
    assert "NumPy or PyTorch (this round accepts both" in (both / "README.md").read_text()
    assert json.loads((both / MANIFEST).read_text())["allow"] == ["numpy", "torch"]
    roster = [json.loads(line) for line in (here / catalog.ROSTER).read_text().splitlines()]
    assert [entry["allow"] for entry in roster] == [["numpy"], ["numpy", "torch"]]


def test_check_script_stops_an_endless_loop(here):
    folder = make_pack(here / "ada", "--katas", "01", "--seed", 11)
    fill(folder, "01", HOSTILE / "loop_forever.py")
    script = (folder / "check.py").read_text()
    assert "\nLIMIT_SECONDS = 20 " in script
    (folder / "check.py").write_text(script.replace("\nLIMIT_SECONDS = 20 ", "\nLIMIT_SECONDS = 2 "))  # a cheap test
    started = time.monotonic()
    done = _check_script(folder)
    assert done.returncode == 1 and time.monotonic() - started < 30
    assert "01 scores       FAILED: still running after 2 s, so it was stopped" in done.stdout


def test_check_script_never_says_ok_for_a_file_with_planted_bugs_left(here):
    from checker.hidden.debug import plants

    folder = make_pack(here / "ada", "--katas", "10", "--seed", 11)
    planted = list(plants.planted(11, DEFAULT_SEED))
    for remaining in (planted[2:], []):
        (folder / "katas" / "10_debug_decoder.py").write_text(plants.source_with(remaining))
        said = _check_script(folder).stdout
        verdict = said.split(": ")[0]
        assert verdict in ("10 debug        shapes ok", "10 debug        FAILED"), (remaining, verdict)
    assert verdict == "10 debug        shapes ok"  # the fixed file: shapes hold, and that is all it says
    assert "whether planted bugs remain, only the graders' tests can tell" in said
    assert 'says "shapes ok", never "ok"' in (folder / "README.md").read_text()


@pytest.mark.parametrize("keys", [kata.id for kata in KATAS] + ["01,04,05", "03,10"])
def test_a_pack_speaks_only_of_what_it_holds(here, keys):
    from checker.hiring import pack_words

    katas = [catalog.find(key) for key in keys.split(",")]
    files = pack_files(make_pack(here / "ada", "--katas", keys, "--seed", 3))
    text = "\n".join(data.decode() for name, data in files.items() if name != MANIFEST)
    assert pack_words.foreign(text, katas) == []
    learner = "\n".join([kata.stub_path.read_text() for kata in katas] + [prompts.for_kata(k).brief for k in katas])
    if keys in ("05", "08", "10"):  # the control: the learner's text has them
        assert pack_words.foreign(learner, katas) != []


def test_check_script_one_kata_and_its_worked_example(here):
    folder = make_pack(here / "ada", "--katas", "01,03", "--seed", 11)
    fill(folder, "01", ZOO / "scores" / "missing-scale.py")  # right shapes, wrong numbers
    done = _check_script(folder, "1")
    assert done.returncode == 1 and "03" not in done.stdout.split("\n\n")[0]
    assert "FAILED" in done.stdout and "worked example" in done.stdout and "3.536" in done.stdout
    assert "missing-scale" not in done.stdout


# --- kata grade -------------------------------------------------------------------------------------

@pytest.fixture
def batch(here):
    """Packs of kata 01 and 03 (seed 5), some hostile, and a folder without a manifest: a batch's cases."""
    folders = {}
    for name in ("solved", "untouched", "looping", "patching", "exiting", "flooding"):
        folders[name] = make_pack(here / name, "--katas", "01,03", "--seed", 5)
    for kata in ("01", "03"):
        fill(folders["solved"], kata, catalog.find(kata).solution_path)
    fill(folders["looping"], "01", HOSTILE / "loop_forever.py")
    fill(folders["patching"], "01", HOSTILE / "patch_numpy.py")
    fill(folders["patching"], "03", ZOO / "causal-mask" / "mask-top-left.py")
    fill(folders["exiting"], "01", HOSTILE / "os_exit_in_call.py")
    fill(folders["flooding"], "01", HOSTILE / "flood_output.py")
    bare = here / "bare" / "katas"
    bare.mkdir(parents=True)
    shutil.copy(catalog.find("02").solution_path, bare / catalog.find("02").filename)
    folders["bare"] = bare.parent
    return folders


EXPECTED = {"solved": {"01": "passed", "03": "passed"}, "untouched": {"01": "not-started", "03": "not-started"},
            "looping": {"01": "timeout", "03": "not-started"}, "patching": {"01": "failed", "03": "failed"},
            "exiting": {"01": "error", "03": "not-started"}, "flooding": {"01": "error", "03": "not-started"},
            "bare": {"02": "passed"}}


def statuses(report):
    return {w["path"]: {check["kata"]: check["status"] for check in w["katas"]} for w in report["workspaces"]}


def test_grade_a_batch_with_hostile_submissions(batch, here):
    result = run("grade", *EXPECTED, "--timeout", 2, "--jobs", 2, "--json", "--report", "grades.md")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # exactly one object, nothing else on stdout
    assert {"isolation", "workspaces"} <= set(report) and report["isolation"]["level"] == "full"
    assert all({"path", "seed", "katas", "flags"} <= set(w) for w in report["workspaces"])  # test_report.py: the rest
    assert statuses(report) == EXPECTED
    checks = [check for w in report["workspaces"] for check in w["katas"]]
    assert all({"kata", "file", "status", "bugs", "tests", "seconds", "sha256", "review"} <= set(check)
               for check in checks)
    assert report["workspaces"][-1]["flags"] == [
        "UNMATCHED: kata-pack.json is missing and kata-roster.jsonl has no record of this folder: graded on its own "
        "files, without the team's rubric or time; not comparable with the others"]
    assert all(w["flags"] == [] for w in report["workspaces"][:-1])
    patched = {check["kata"]: check for check in report["workspaces"][3]["katas"]}
    assert patched["03"]["bugs"][0] == "mask-top-left"
    looped = report["workspaces"][2]["katas"][0]["tests"][0]["message"]
    assert looped.startswith("the candidate's code gave ") and "an endless loop?" in looped
    markdown = (here / "grades.md").read_text()
    patching = markdown[markdown.index("### ") + markdown[markdown.index("### "):].index(". patching"):]
    assert "| 03 causal-mask | failed |" in patching and "| mask-top-left" in patching.split("\n### ")[0]
    assert "**tampering**: kata 01: patches np.allclose" in patching.split("\n### ")[0]
    assert f"Seed {DEFAULT_SEED} · pack -" in markdown[markdown.index(". bare"):]
    assert "Isolation: full (user-namespace, network-namespace, private-tmpfs, no-new-privs, landlock-fs" in markdown
    assert "## Totals per kata" in markdown and "## Totals per status" in markdown
    assert "| timeout | 1 |" in markdown
    state = (here / "grades.md.state.jsonl").read_text().splitlines()
    assert len(state) == len(EXPECTED)
    entries = {os.path.basename(json.loads(line)["entry"]["path"]): json.loads(line)["entry"] for line in state}  # as they finished
    assert entries["solved"]["katas"][0]["sha256"] == \
        hashlib.sha256((batch["solved"] / "katas" / "01_scores.py").read_bytes()).hexdigest()


def test_grade_text_summary(batch, here):
    result = run("grade", "solved", "patching", "--timeout", 5)
    assert result.exit_code == 0, result.output
    assert "solved    01 passed · 03 passed" in result.output
    assert "03 failed (mask-top-left)" in result.output
    assert "2 workspaces, 4 checks" in result.output
    assert (here / DEFAULT_STATE).exists()


def test_seed_overrides_the_manifest(batch, here):
    result = run("grade", "untouched", "--seed", 99, "--report", "r.md")
    assert result.exit_code == 0, result.output
    assert "### 1. untouched: 0.0/100\n\nSeed 99 · pack " in (here / "r.md").read_text()


def _state_line(path, seed, kata_status, state=None, sign=True):
    """A state line for `path`'s workspace as it is now, signed with `state`'s key (as the grader would)."""
    from checker.hiring import grade as grading

    workspace = grading.open_workspace(path)
    key = list(workspace.key)
    key[1] = seed
    checks = [{"kata": kata, "file": f"{path.name}/katas/x.py", "status": status, "bugs": [], "tests": [],
               "seconds": 0.5, "sha256": None, "review": []} for kata, status in kata_status.items()]
    entry = {"key": json.dumps(tuple(key)), "path": key[0], "seed": seed, "katas": checks}
    mac = grading._sign(grading.state_key(state or path.parent / DEFAULT_STATE), entry) if sign else "0" * 64
    return json.dumps({"entry": entry, "mac": mac})


def test_resume_skips_finished_workspaces(batch, here):
    # an interrupted batch: "untouched" finished (its line says passed, which a new grading would not),
    # then the process died while writing the next line
    state = here / "grades.md.state.jsonl"
    state.write_text(_state_line(batch["untouched"], 5, {"01": "passed", "03": "passed"}, state) + "\n"
                     + '{"entry": {"path": "' + str(batch["solved"].resolve()) + '", "seed": 5, "kat')
    result = run("grade", "untouched", "solved", "--resume", "--report", "grades.md", "--json")
    assert result.exit_code == 0, result.output
    assert statuses(json.loads(result.stdout)) == {"untouched": {"01": "passed", "03": "passed"},
                                                   "solved": EXPECTED["solved"]}
    assert "1 workspaces finished in an earlier run" in result.stderr  # --json: stdout holds the JSON only
    lines = state.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line) for line in lines)  # the cut line is gone
    assert (here / "grades.md.state.jsonl.key").stat().st_mode & 0o077 == 0  # the key: this user's only

    text = run("grade", "untouched", "solved", "--resume", "--report", "grades.md")
    assert "2 of them finished in an earlier run" in text.output
    assert "ignored" not in text.output  # the cut line was a crash's, not a forgery


def test_a_state_line_not_signed_is_ignored_and_counted(batch, here):
    forged = [_state_line(batch[name], 5, {"01": "passed", "03": "passed"}, sign=False) for name in ("untouched",
                                                                                                       "looping")]
    (here / DEFAULT_STATE).write_text("\n".join(forged) + "\n")
    result = run("grade", "untouched", "--resume")
    assert "2 lines of the state file were ignored: not signed by this grader's key" in result.output
    assert "untouched  01 not-started · 03 not-started" in result.output  # graded, not taken from the forgery


def test_resume_regrades_a_workspace_finished_with_another_seed(batch, here):
    (here / DEFAULT_STATE).write_text(_state_line(batch["untouched"], 6, {"01": "passed", "03": "passed"}) + "\n")
    result = run("grade", "untouched", "--resume", "--json")
    assert statuses(json.loads(result.stdout)) == {"untouched": EXPECTED["untouched"]}


def test_without_resume_the_state_starts_afresh(batch, here):
    (here / DEFAULT_STATE).write_text(_state_line(batch["untouched"], 5, {"01": "passed", "03": "passed"}) + "\n")
    result = run("grade", "untouched", "--json")
    assert statuses(json.loads(result.stdout)) == {"untouched": EXPECTED["untouched"]}
    assert "starting afresh" in result.stderr
    assert len((here / DEFAULT_STATE).read_text().splitlines()) == 1


# --- usage mistakes ------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["grade", "nowhere"], "no such folder: nowhere"),
    (["grade", "nokatas", "--report", "missing/r.md"], "no such folder for the report: missing"),
    (["pack", "full"], "full already exists and is not an empty folder"),
    (["pack", "new", "--katas", "01,99"], "unknown kata '99'"),
    (["pack", "new", "--katas", ","], "--katas takes kata ids"),
])
def test_usage_mistakes_are_one_line_and_exit_2(here, args, words):
    (here / "empty").mkdir()
    (here / "nokatas" / "katas").mkdir(parents=True)
    (here / "broken" / "katas").mkdir(parents=True)
    (here / "broken" / MANIFEST).write_text("{not json")
    (here / "full").mkdir()
    (here / "full" / "notes.txt").write_text("a candidate's work")
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (here / "new").exists()


def test_report_in_a_missing_folder_is_a_usage_mistake(batch, here):
    result = run("grade", "solved", "--report", "missing/r.md")
    assert result.exit_code == 2 and "no such folder for the report: missing" in result.output


# --- a round that moves ----------------------------------------------------------------------------------

def _scores(*args):
    result = run("grade", *args, "--timeout", 5, "--json")
    assert result.exit_code == 0, result.output
    return {os.path.basename(w["path"]): (w["score"], w["flags"], (w["roster"] or {}).get("folder"), w["seed"])
            for w in json.loads(result.stdout)["workspaces"]}


def test_a_round_survives_being_copied_zipped_and_cloned(here):
    for name, seed in (("ada", 41), ("bob", 42)):
        make_pack(here / "interviews" / name, "--katas", "01,03", "--seed", seed, "--weights", "03=3")
    fill(here / "interviews" / "ada", "03", catalog.find("03").solution_path)
    roster = [json.loads(line) for line in (here / "interviews" / "kata-roster.jsonl").read_text().splitlines()]
    assert [entry["folder"] for entry in roster] == ["ada", "bob"]  # relative to the roster: the round can move
    at_home = _scores(*sorted((here / "interviews").iterdir()))  # `interviews/*`: the roster and key are skipped
    assert at_home == {"ada": (75.0, [], "ada", 41), "bob": (0.0, [], "bob", 42)}  # 03 weighs 3 of 4

    shutil.copytree(here / "interviews", here / "elsewhere")
    assert _scores(here / "elsewhere" / "ada", here / "elsewhere" / "bob") == at_home
    for name in ("ada", "bob"):  # returned as zips, unpacked under other names, the roster left behind
        archive = shutil.make_archive(str(here / f"{name}-returned"), "zip", here / "interviews" / name)
        shutil.unpack_archive(archive, here / "returned" / f"{name}-final")
    moved = _scores(here / "returned" / "ada-final", here / "returned" / "bob-final",
                    "--roster", here / "interviews" / "kata-roster.jsonl")
    assert moved == {f"{name}-final": value for name, value in at_home.items()}
    lost = _scores(here / "returned" / "ada-final")  # no roster beside it or here: loud, never silent
    assert lost["ada-final"][1][0].startswith("UNMATCHED: no roster found")


def test_a_candidate_cannot_pass_for_another(here):
    for name, seed in (("ada", 41), ("bob", 42), ("eve", 43)):
        make_pack(here / "interviews" / name, "--katas", "01", "--seed", seed)
    ada = json.loads((here / "interviews" / "ada" / MANIFEST).read_text())
    (here / "interviews" / "bob" / MANIFEST).write_text(json.dumps(ada))  # bob hands in ada's manifest
    eve = json.loads((here / "interviews" / "eve" / MANIFEST).read_text())
    (here / "interviews" / "eve" / MANIFEST).write_text(json.dumps({**eve, "pack": ada["pack"]}))  # ada's id, own seal
    shutil.copytree(here / "interviews" / "eve", here / "interviews" / "mallory")
    forged = {**eve, "pack": "0" * 16}
    (here / "interviews" / "mallory" / MANIFEST).write_text(json.dumps(forged))
    found = _scores(*(here / "interviews" / name for name in ("ada", "bob", "eve", "mallory")))
    assert found["ada"][1][0].startswith("SHARED RECORD: pack " + ada["pack"]) and "bob" in found["ada"][1][0]
    assert found["bob"][1][0].startswith("SHARED RECORD") and found["bob"][3] == 41  # graded as issued, flagged
    assert found["eve"][1][0].startswith("UNMATCHED: kata-pack.json claims pack") and found["eve"][2] is None
    assert found["mallory"][1][0].startswith("UNMATCHED: pack id '0000000000000000' is not in")
    del eve["pack"]  # no id at all, where the pack was issued: matched by its folder, flagged
    (here / "interviews" / "eve" / MANIFEST).write_text(json.dumps(eve))
    assert _scores(here / "interviews" / "eve")["eve"][1:3] == (
        ["kata-pack.json holds no pack id: matched to the roster by its folder (eve)"], "eve")


def test_a_weight_for_a_kata_the_pack_does_not_hold_is_warned_of(here):
    result = run("pack", here / "ada", "--katas", "01", "--seed", 1, "--weights", "01=2,03=3")
    assert result.exit_code == 0
    assert "warning: --weights gives kata 03 a weight, but the pack does not hold kata 03: ignored" in result.stderr
    assert "warning" not in run("pack", here / "bob", "--katas", "01,03", "--seed", 1, "--weights", "03=3").stderr


def test_a_syntax_error_says_its_line():
    from checker.engine.runner import check

    result = check(catalog.find("01"), HOSTILE / "syntax_error.py")
    line = next(number for number, text in enumerate((HOSTILE / "syntax_error.py").read_text().splitlines(), 1)
                if text.startswith("def attention_scores"))
    assert f"at line {line}: def attention_scores(q, k)" in result.tests[0].message
    assert "your code gave" not in result.tests[0].message


@pytest.mark.parametrize("error", ["MemoryError", "NameError('np2')"])
def test_greedy_nan_needs_a_division_error(tmp_path, error):
    """Only dividing by temperature 0 is evidence of greedy-nan: running out of memory (21 of 27 checks of a
    candidate's 09 were named greedy-nan) or any other crash at temperature 0 is not."""
    from checker.engine.runner import check

    failing = tmp_path / "09_sampling.py"
    failing.write_text("def next_token_probs(logits, temperature=1.0, top_k=None, top_p=None):\n"
                       f"    if temperature == 0:\n        raise {error}\n    raise ValueError('not this one')\n\n\n"
                       "def sample_token(probs, u):\n    raise ValueError('not this one')\n")
    greedy = next(test for test in check(catalog.find("09"), failing).tests if test.name == "greedy")
    assert greedy.outcome.value == "error" and greedy.bug is None, greedy
    control = check(catalog.find("09"), ZOO / "sampling" / "greedy-nan--zero-division.py")  # a real division by 0
    assert "greedy-nan" in control.bugs


def test_the_progress_bar_names_the_candidate_and_the_time_left(monkeypatch):
    import io

    from checker.cli.hiring import _ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with _ProgressBar() as bar:
        for done, name in enumerate((None, "interviews/ada", "interviews/bob")):
            bar(done, 3, name)
    assert "1/3  interviews/ada done, about " in terminal.getvalue() and " s left" in terminal.getvalue()


# --- the README's commands, as a hiring team copies them ---------------------------------------------

def _readme_commands():
    """Every command of the code blocks of the README's "For hiring teams" section (comments dropped)."""
    readme = (catalog.ROOT / "README.md").read_text()
    section = readme.split("\n## For hiring teams\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```\n(.*?)^```", section, re.M | re.S)
    commands = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()
                if line.startswith(("kata ", "mkdir ", "cp ", "python "))]
    return [command for command in commands if command]


def _expanded(command):
    """The words of a `kata ...` command as bash would pass them: quotes removed, globs expanded and sorted."""
    import glob
    import shlex

    words = []
    for word in shlex.split(command):
        found = sorted(glob.glob(word)) if any(char in word for char in "*?[") else []
        words += found or [word]
    return words[1:]


def test_the_readme_commands_for_hiring_teams_work_as_written(here):
    commands = _readme_commands()
    assert any(command.startswith("kata grade interviews/* ") for command in commands)
    assert any("--roster" in command for command in commands)
    for command in commands:  # `kata` in this process (cheap), the shell's commands in bash
        if command.startswith("kata "):
            done = CliRunner().invoke(cli, _expanded(command))
            output, failed = done.output, done.exit_code != 0
        else:
            shell = subprocess.run(["bash", "-c", command], cwd=here, capture_output=True, text=True, timeout=60)
            output, failed = shell.stdout + shell.stderr, shell.returncode != 0
        assert not failed, f"{command}\n{output}"
        assert "UNMATCHED" not in output and "Error" not in output, (command, output)
    assert (here / "review.html").is_file() and (here / "review" / "index.html").is_file()
    assert (here / "grades.md").is_file() and (here / "returned.md").is_file()

"""The package as a user installs it: the oldest Python it claims, `kata init`, commands outside a workspace,
`kata doctor`. (Building and installing the wheel itself: test_wheel.py, marked `wheel`.)"""

import ast
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.engine import catalog, doctor
from checker.practice import scaffold
from checker.cli import cli
from checker.present.doctor_text import WIDTH, doctor_text

ROOT = Path(__file__).resolve().parent.parent
OLDEST = (3, 10)


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input)


def test_requires_python_is_the_oldest_grammar_checked():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert declared == f">={OLDEST[0]}.{OLDEST[1]}"


def test_every_module_parses_with_the_oldest_grammar():
    """A 3.11-only construct (except*, a PEP 695 generic, a 3.12 f-string) would fail here."""
    files = [path for folder in ("checker", "solutions", "katas", "tests", "bench") for path in (ROOT / folder).rglob("*.py")]
    files.append(ROOT / "setup.py")
    assert len(files) > 100
    for path in files:
        source = path.read_text(encoding="utf-8")
        try:
            ast.parse(source)
        except SyntaxError:  # a hostile or broken learner file of the tests, broken on purpose in any grammar
            continue
        ast.parse(source, str(path), feature_version=OLDEST)


def test_the_grammar_check_catches_a_newer_construct():  # control: feature_version does refuse 3.11 syntax
    with pytest.raises(SyntaxError):
        ast.parse("try:\n    pass\nexcept* ValueError:\n    pass\n", feature_version=OLDEST)


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """kata as a wheel installs it: no checkout to fall back on; the current folder is tmp_path."""
    monkeypatch.setattr(catalog, "is_checkout", lambda folder=None: False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


COMMANDS = [["list"], ["check", "01"], ["next"], ["hint"], ["solution", "01", "--yes"], ["reset", "01"], ["backups"],
            ["bench", "05"], ["watch"], ["mock"], ["review"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command[0])
def test_outside_a_workspace_one_line_names_kata_init(installed, command):
    result = run(*command)
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "no kata workspace here" in lines[0] and "`kata init`" in lines[0], result.output


def test_the_checkout_stays_a_workspace_from_outside(tmp_path, monkeypatch):  # control of the fixture above
    monkeypatch.chdir(tmp_path)
    assert catalog.is_checkout() and catalog.find_workspace() == catalog.ROOT


def test_init_lays_out_a_workspace(installed):
    result = run("init", "ws")
    assert result.exit_code == 0 and "Made a workspace in ws" in result.output
    ws = installed / "ws"
    assert (ws / ".kata").is_dir() and "kata check 01" in (ws / "README.md").read_text()
    for kata in catalog.all_katas():
        assert (ws / "katas" / kata.filename).read_text() == kata.pristine_path.read_text()
    assert catalog.find_workspace(ws) == ws


def test_init_keeps_a_learners_files(installed):
    ws = installed / "ws"
    (ws / "katas").mkdir(parents=True)
    edited = "def scores(q, k):\n    return 'mine'\n"
    (ws / "katas" / "01_scores.py").write_text(edited)
    (ws / "README.md").write_text("my notes\n")
    result = run("init", "ws")
    assert result.exit_code == 0
    assert "is a workspace already" in result.output and "kept 2 of your files" in result.output
    assert "01_scores.py" in result.output and "katas/02_softmax.py" in result.output
    assert (ws / "katas" / "01_scores.py").read_text() == edited and (ws / "README.md").read_text() == "my notes\n"
    assert (ws / "katas" / "02_softmax.py").read_text() == catalog.find("02").pristine_path.read_text()
    again = run("init", "ws")  # nothing left to add: every file is the learner's or already there
    assert "added nothing" in again.output and (ws / "katas" / "01_scores.py").read_text() == edited


def test_init_refuses_a_file_in_the_way(installed):
    (installed / "ws").write_text("a file")
    result = run("init", "ws")
    assert result.exit_code == 1 and "is a file, not a folder" in result.output
    (installed / "w2").mkdir()
    (installed / "w2" / "katas").symlink_to(installed)  # a link would send the stubs elsewhere
    assert "is not a folder" in run("init", "w2").output and not (installed / "01_scores.py").exists()


FULL = {"applied": list(doctor.wire.FULL_ISOLATION), "missing": {}, "level": "full"}
NO_USERNS = {"applied": ["no-new-privs", "landlock-fs", "landlock-net", "landlock-scope", "seccomp"],
             "missing": {"user-namespace": "Operation not permitted", "network-namespace": "Operation not permitted",
                         "private-tmpfs": "Operation not permitted"}, "level": "reduced"}


def test_doctor_with_every_wall(monkeypatch):
    monkeypatch.setattr(doctor, "probe", lambda: FULL)
    text = doctor_text(doctor.examine())
    assert "8 of 8 stand" in text and "Grading (kata grade): runs" in text and "REFUSED" not in text
    assert max(len(line) for line in text.splitlines()) <= WIDTH


def test_doctor_with_user_namespaces_refused(monkeypatch):
    """As on a machine where unshare(CLONE_NEWUSER) fails (a sysctl, AppArmor, a container's seccomp), and
    without either extra (the longest screen: `pip install -e .` alone)."""
    monkeypatch.setattr(doctor, "probe", lambda: NO_USERNS)
    monkeypatch.setattr(doctor, "_version", lambda module: "")
    result = run("doctor")
    text, flat = result.output, " ".join(result.output.split())
    assert result.exit_code == 0 and "5 of 8 stand" in text
    assert "NO user-namespace" in text and "missing: Operation not permitted" in text
    assert "REFUSED without --insecure (missing: user-namespace, network-namespace, private-tmpfs)" in flat
    assert "sysctl -w user.max_user_namespaces" in flat
    assert 'PyTorch: no; JupyterLab: no (pip install "kata[torch,notebook]")' in flat
    assert max(len(line) for line in text.splitlines()) <= WIDTH and len(text.splitlines()) <= 24


def test_doctor_off_linux(monkeypatch):
    monkeypatch.setattr(doctor.sys, "platform", "darwin")
    monkeypatch.setattr(doctor, "probe", lambda: {"applied": [], "missing": {name: "not Linux (darwin)" for name in
                                                  doctor.wire.FULL_ISOLATION}, "level": "reduced"})
    text = doctor_text(doctor.examine())
    assert "practice works, grading needs Linux" in text and "To fix:" not in text and "0 of 8 stand" in text


def test_doctor_on_this_machine_uses_the_sandboxes_own_report():
    from checker.hiring.grade import probe_isolation
    from checker.sandbox import Limits

    report, found = doctor.examine(), probe_isolation(Limits())
    assert {wall.name for wall in report.walls if wall.stands} == set(found["applied"]) - set(found["missing"])
    assert report.grading == (found["level"] == "full")


def test_the_notebook_magic_outside_a_workspace(installed, monkeypatch):
    pytest.importorskip("IPython")
    from checker.practice import notebook

    shown = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    notebook.kata_magic("02", "x = 1")
    assert "`kata init` makes one" in repr(shown[0]) and len(repr(shown[0]).splitlines()) == 1

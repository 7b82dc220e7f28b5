"""The package as a user without a checkout gets it: the wheel built from a clean copy of the sources (and
again from its sdist), installed in a fresh venv without system site packages, used in a folder far from
the checkout. Slow (a venv and a pip install): marked `wheel`, deselected by default, run by .ci/run."""

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from checker.engine import catalog

pytestmark = pytest.mark.wheel
ROOT = Path(__file__).resolve().parent.parent
MINUTES = 5 * 60


def _run(command, cwd, input=None, check=True):
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(command, cwd=cwd, input=input, capture_output=True, text=True, timeout=MINUTES, env=env)
    if check and done.returncode != 0:
        pytest.fail(f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def _sources(target):
    """A clean copy of the checkout's files (tracked and new, not ignored): what a fresh clone builds from."""
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(source.read_bytes())
    return target


def tree_digest(folder):
    """One hash of every path and every file's bytes beneath `folder`."""
    digest = hashlib.sha256()
    for path in sorted(Path(folder).rglob("*")):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        if path.is_file() and not path.is_symlink():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    sources = _sources(base / "src")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "dist"), str(sources)], base)
    wheel, = (base / "dist").glob("kata-*.whl")
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], base)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], base)
    site, = (venv / "lib").glob("python3.*/site-packages")
    away = base / "away"
    away.mkdir()
    return {"base": base, "sources": sources, "wheel": wheel, "kata": str(venv / "bin" / "kata"), "site": site,
            "before": tree_digest(site), "away": away}


def kata(installed, *args, cwd=None, input=None, check=True):
    return _run([installed["kata"], *args], cwd or installed["away"], input=input, check=check)


def test_the_wheel_holds_the_data_and_the_license(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for kata_ in catalog.all_katas():
        assert f"checker/_data/solutions/{kata_.filename}" in names
        assert f"checker/hidden/{kata_.folder.name}/stub.py" in names
    assert {"checker/_data/prompts.yaml", "checker/practice/learner_readme.md", "checker/engine/doctor.yaml"} <= names
    assert not any(name.startswith(("katas/", "solutions/", "tests/")) for name in names)
    metadata = zipfile.ZipFile(installed["wheel"]).read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata and "Requires-Python: >=3.10" in metadata
    assert any(name.endswith("licenses/LICENSE") for name in names)


def test_the_sdist_builds_the_same_wheel(installed):
    base = installed["base"]
    tools = base / "tools"  # a venv with the setuptools pyproject.toml asks for (a venv's own may be older)
    _run([sys.executable, "-m", "venv", str(tools)], base)
    _run([str(tools / "bin" / "python"), "-m", "pip", "install", "-q", "setuptools>=77"], base)
    _run([str(tools / "bin" / "python"), "-c",
          "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])", str(base / "sdist")],
         installed["sources"])
    sdist, = (base / "sdist").glob("kata-*.tar.gz")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "again"), str(sdist)], base)
    again, = (base / "again").glob("kata-*.whl")
    first, second = zipfile.ZipFile(installed["wheel"]), zipfile.ZipFile(again)
    assert sorted(first.namelist()) == sorted(second.namelist())
    for name in first.namelist():
        if not name.endswith("/RECORD"):  # RECORD holds the same hashes; only its line order may differ
            assert first.read(name) == second.read(name), name


def test_a_learner_and_a_hiring_team_without_a_checkout(installed):
    outside = kata(installed, "list", check=False)
    assert outside.returncode == 1 and "Traceback" not in outside.stderr
    assert outside.stderr.strip().count("\n") == 0 and "`kata init` makes one" in outside.stderr

    made = kata(installed, "init", "ws")
    assert "Made a workspace in ws" in made.stdout
    ws = installed["away"] / "ws"
    listed = json.loads(kata(installed, "list", "--json", cwd=ws).stdout)
    assert [row["id"] for row in listed] == [k.id for k in catalog.all_katas()]

    first = kata(installed, "check", "01", cwd=ws, check=False)
    assert first.returncode == 1 and "NOT STARTED" in first.stdout
    (ws / "katas" / "01_scores.py").write_bytes(catalog.find("01").solution_path.read_bytes())
    passed = kata(installed, "check", "01", cwd=ws)
    assert "PASSED" in passed.stdout
    assert "Hint 1 of" in kata(installed, "hint", "02", cwd=ws).stdout

    asked = json.loads(kata(installed, "quiz", "scores", "-n", "1", "--seed", "3", "--json", cwd=ws, input="",
                            check=False).stdout)
    answer = asked["questions"][0]["expected"]
    quiz = kata(installed, "quiz", "scores", "-n", "1", "--seed", "3", cwd=ws, input=f"{answer}\n")
    assert "Score: 1 of 1" in quiz.stdout

    kata(installed, "pack", "round", "--katas", "01,02", "--seed", "7")
    checkout = installed["base"] / "checkout-pack"
    checkout.mkdir()
    subprocess.run([sys.executable, "-m", "checker", "pack", "round", "--katas", "01,02", "--seed", "7"],
                   cwd=checkout, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, timeout=MINUTES,
                   check=True)  # the same pack from the checkout
    _same_pack(installed["away"] / "round", checkout / "round")

    (installed["away"] / "round" / "katas" / "01_scores.py").write_bytes(catalog.find("01").solution_path.read_bytes())
    graded = json.loads(kata(installed, "grade", "round", "--json", check=False).stdout)
    statuses = {row["kata"]: row["status"] for row in graded["workspaces"][0]["katas"]}
    assert statuses == {"01": "passed", "02": "not-started"}, graded

    assert not (installed["site"] / "checker" / ".kata").exists()
    assert tree_digest(installed["site"]) == installed["before"]  # nothing written into the installed package


def test_a_learners_file_cannot_read_the_installed_reference(installed):
    """The wheel puts the references in site-packages; the sandbox lets the child read NumPy there, not them."""
    ws = installed["away"] / "thief"
    kata(installed, "init", "thief")
    reference = installed["site"] / "checker" / "_data" / "solutions" / catalog.find("01").filename
    thief = ws / "katas" / "01_scores.py"
    thief.write_text(f"from pathlib import Path\nexec(Path({str(reference)!r}).read_text())\n")
    control = _run([str(installed["site"].parents[2] / "bin" / "python"), str(thief)], ws)  # outside: it reads it
    assert control.returncode == 0
    caught = kata(installed, "check", "01", cwd=ws, check=False)
    assert caught.returncode != 0 and "PASSED" not in caught.stdout and "Permission denied" in caught.stdout, \
        caught.stdout


def _same_pack(wheel_pack, checkout_pack):
    """Byte for byte but the pack's id and seal, which each `kata pack` draws afresh."""
    files = sorted(p.relative_to(wheel_pack) for p in wheel_pack.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(checkout_pack) for p in checkout_pack.rglob("*") if p.is_file())
    for name in files:
        ours, theirs = (wheel_pack / name).read_bytes(), (checkout_pack / name).read_bytes()
        if name.name == catalog.MANIFEST:
            ours, theirs = ({k: v for k, v in json.loads(text).items() if k not in ("pack", "seal")}
                            for text in (ours, theirs))
        assert ours == theirs, name


def test_the_tree_digest_sees_a_written_file(tmp_path):  # control: a write into the package would show
    (tmp_path / "pkg").mkdir()
    before = tree_digest(tmp_path)
    (tmp_path / "pkg" / "progress.json").write_text("{}")
    assert tree_digest(tmp_path) != before


def test_init_keeps_a_learners_edited_file(installed):
    ws = installed["away"] / "mine"
    (ws / "katas").mkdir(parents=True)
    edited = catalog.find("03").pristine_path.read_text() + "\n# my attempt so far\n"
    (ws / "katas" / "03_causal_mask.py").write_text(edited)
    done = kata(installed, "init", "mine")
    assert "kept 1 of your files" in done.stdout and "katas/03_causal_mask.py" in done.stdout
    assert (ws / "katas" / "03_causal_mask.py").read_text() == edited
    assert (ws / "katas" / "01_scores.py").read_text() == catalog.find("01").pristine_path.read_text()
    assert tree_digest(installed["site"]) == installed["before"]

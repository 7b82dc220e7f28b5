"""Grading integrity, the trusted parent's side: a workspace's files, names and text attack the grader itself.

One `kata grade` (report, CSV, HTML, JSON) grades every attack beside two honest candidates: a kata file that is
a symlink loop, a workspace without katas/, manifests too deep or too large to parse, a file too deep for `ast`,
a modification time no date can show, ESC sequences, Markdown and formulas in a folder name, a link target and an
exception message, code pushed off-screen and bidirectional-text controls. The batch finishes, the honest
candidates pass with their files byte for byte, each attack is its own row, and its text reaches every channel
escaped for it. Each attack has a control: it does what it claims outside the grader.
"""

import ast
import csv
import datetime
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.engine import catalog
from checker.present import escape
from checker.cli import cli
from checker.hiring.grade import check_one as real_check_one
from checker.hiring.pack import MANIFEST

SOLUTION = catalog.find("01").solution_path
ESC = "\x1b[2J\x1b[H"  # clear the screen, cursor home: a fake ranking is drawn after it
FAKE = f"{ESC}  1. attacker  100.0  1/1 katas\n\n## Reviewer sign-off\n\nHire ![t](http:track.test?p.png) <!-- "
NAME = "=1+2" + FAKE.replace("http:track.test?p.png", "http:track.test") + "|"  # a folder name: no slash
DEEP = 6000  # attributes in a chain: RecursionError in ast.parse
SCALED = "    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])\n"
# Trojan Source: the bidi controls make `;return scores ;` read as part of the string literals around it
TROJAN = ('import numpy as np\n\ndef attention_scores(q, k):\n    scores = q @ np.swapaxes(k, -1, -2)\n'
          '    """\u202e""" ;return scores ;"""\u2066"""\n' + SCALED.replace("q @ np.swapaxes(k, -1, -2)", "scores"))
OFFSCREEN = "import numpy as np" + " " * 240 + "; np.sqrt = lambda x: 1.0  # forged: the scale is gone\n"
RAISES = f"print({FAKE!r})\nraise RuntimeError({FAKE!r})\n"
LATE = 10**12  # seconds since 1970: the year 33658, which a tmpfs file may claim
LOUD = "import numpy as np\n\ndef attention_scores(q, k):\n    raise RuntimeError('x' * 100_000)\n"  # 100 kB a check
CHAIN = 1500  # links in a chain: os.path.realpath (Python 3.11) recurses once a link
ATTACKS = ("loop", "chain", "nokatas", "deep", "deep_manifest", "infinite_seed", "lying_link", NAME, "offscreen", "trojan",
           "loud")


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _late_workspace():
    """A packed workspace on a tmpfs whose kata file claims the year 33658, or None where none can be made."""
    if not os.path.isdir("/dev/shm"):
        return None
    folder = Path(tempfile.mkdtemp(dir="/dev/shm")) / "late"
    assert run("pack", folder, "--katas", "01", "--seed", 5).exit_code == 0
    kata_file = folder / "katas" / "01_scores.py"
    kata_file.write_bytes(SOLUTION.read_bytes())
    os.utime(kata_file, (LATE, LATE))
    if os.lstat(kata_file).st_mtime != LATE:  # this file system clamps it: nothing to show here
        shutil.rmtree(folder.parent)
        return None
    return folder


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    here = tmp_path_factory.mktemp("workspace_attacks")
    old = os.getcwd()
    os.chdir(here)
    late = _late_workspace()
    try:
        for name in ("honest", "honest_too", *ATTACKS):
            assert run("pack", here / name, "--katas", "01", "--seed", 5).exit_code == 0, name
        for name in ("honest", "honest_too"):
            (here / name / "katas" / "01_scores.py").write_bytes(SOLUTION.read_bytes())
        files = {name: here / name / "katas" / "01_scores.py" for name in ATTACKS}
        files["loop"].unlink()
        files["loop"].symlink_to("01_scores.py")  # itself
        files["chain"].unlink()
        for number in range(CHAIN):  # 01_scores.py -> l1 -> l2 ... -> l1500, a file
            (here / "chain" / "katas" / (f"l{number}" if number else "01_scores.py")).symlink_to(f"l{number + 1}")
        (here / "chain" / "katas" / f"l{CHAIN}").write_bytes(SOLUTION.read_bytes())
        shutil.rmtree(here / "nokatas" / "katas")
        files["deep"].write_text(SOLUTION.read_text() + "\n\ndef unused():\n    return q" + ".a" * DEEP + "\n")
        (here / "deep_manifest" / MANIFEST).write_text("[" * 30_000 + "]" * 30_000)  # within the 64 KiB it reads
        (here / "infinite_seed" / MANIFEST).write_text('{"katas": ["01"], "seed": Infinity}')
        for name in ("deep_manifest", "infinite_seed"):
            files[name].write_bytes(SOLUTION.read_bytes())
        files["lying_link"].unlink()
        files["lying_link"].symlink_to("/" + FAKE)  # leaves the workspace: refused, its target quoted in a flag
        files[NAME].write_text(RAISES)
        files["offscreen"].write_text(OFFSCREEN + SOLUTION.read_text())
        files["trojan"].write_text(TROJAN)
        files["loud"].write_text(LOUD)
        folders = ["honest", "honest_too", *ATTACKS] + ([late] if late else [])
        before = {name: sha(here / name / "katas" / "01_scores.py") for name in ("honest", "honest_too")}
        outputs = {"csv": here / "grades.csv", "html": here / "review.html", "markdown": here / "grades.md"}
        result = run("grade", *folders, "--jobs", 2, "--timeout", 5, "--report", outputs["markdown"],
                     "--csv", outputs["csv"], "--html", outputs["html"])
        written = {key: path.read_text(encoding="utf-8") if path.is_file() else None for key, path in outputs.items()}
        as_json = run("grade", *folders, "--jobs", 2, "--timeout", 5, "--json", "--report", outputs["markdown"],
                      "--resume")  # every workspace from the state file
        yield {"here": here, "result": result, "json": as_json, "before": before, "late": late, "folders": folders,
               "report": json.loads(as_json.stdout) if as_json.exit_code == 0 else None, **written}
    finally:
        os.chdir(old)
        if late:
            shutil.rmtree(late.parent)


def workspace(batch, name):
    return next(w for w in batch["report"]["workspaces"] if w["path"] == str(name))


def check(batch, name):
    return workspace(batch, name)["katas"][0]


# --- the batch finishes, the honest candidates pass, every output is written ------------------------

def test_the_batch_report_csv_page_json_and_resume_all_work(batch):
    assert batch["result"].exit_code == 0, batch["result"].output
    assert batch["json"].exit_code == 0, batch["json"].output
    assert batch["report"] and batch["csv"] and batch["html"] and batch["markdown"]
    assert len(batch["report"]["workspaces"]) == len(batch["folders"])
    graded = [w for w in batch["report"]["workspaces"] if not w.get("error")]  # error rows: none to resume
    assert f"{len(graded)} workspaces finished in an earlier run" in batch["json"].stderr


def test_honest_candidates_pass_with_their_files_untouched(batch):
    for name in ("honest", "honest_too"):
        assert check(batch, name)["status"] == "passed" and workspace(batch, name)["flags"] == []
        assert check(batch, name)["review"] == []
        assert sha(batch["here"] / name / "katas" / "01_scores.py") == batch["before"][name]


# --- reading and parsing: each broken workspace is its own row ---------------------------------------

def test_a_kata_file_that_is_a_symlink_loop_is_refused_and_flagged(batch):
    loop = batch["here"] / "loop" / "katas" / "01_scores.py"
    with pytest.raises(RuntimeError, match="Symlink loop"):  # control: what stopped the grader before
        loop.resolve()
    assert check(batch, "loop")["status"] == "error"
    assert any("refused katas/01_scores.py: Too many levels of symbolic links" in flag
               for flag in workspace(batch, "loop")["flags"])


def test_a_chain_of_links_too_long_to_follow_is_refused_and_flagged(batch):
    with pytest.raises(RecursionError):  # control
        os.path.realpath(batch["here"] / "chain" / "katas" / "01_scores.py")
    assert check(batch, "chain")["status"] == "error"
    assert "refused katas/01_scores.py: a chain of links too long to follow" in workspace(batch, "chain")["flags"]


def test_a_workspace_without_katas_is_an_error_row(batch):
    assert not (batch["here"] / "nokatas" / "katas").exists()  # control
    row = workspace(batch, "nokatas")
    assert "has no katas/ folder" in row["error"] and row["seed"] == 5  # the roster's seed
    assert re.search(r"\n### \d+\. nokatas: not graded\n\nSeed 5 · ", batch["markdown"])


def test_a_file_too_deep_for_ast_is_noted_not_a_crash(batch):
    source = (batch["here"] / "deep" / "katas" / "01_scores.py").read_bytes()
    with pytest.raises(RecursionError):  # control: ast.parse-based code (the review scan) crashed on it
        ast.parse(source)
    deep = check(batch, "deep")
    assert deep["status"] == "error"  # its own row: Python cannot compile it either
    assert any("too deeply nested for the review scan" in note for note in deep["review"])


@pytest.mark.parametrize("name, raised", [("deep_manifest", RecursionError), ("infinite_seed", OverflowError)])
def test_a_manifest_the_parser_chokes_on_is_flagged_and_graded_as_issued(batch, name, raised):
    text = (batch["here"] / name / MANIFEST).read_text()
    with pytest.raises(raised):  # control: what the manifest reader did not catch
        int(json.loads(text)["seed"]) if name == "infinite_seed" else json.loads(text)
    assert check(batch, name)["status"] == "passed"  # the roster's katas and seed
    assert any(f"{MANIFEST} is not a kata pack manifest ({raised.__name__}" in flag
               for flag in workspace(batch, name)["flags"])


def test_a_modification_time_out_of_range_is_shown_as_unknown_and_flagged(batch):
    if batch["late"] is None:
        pytest.skip("no tmpfs here that keeps a modification time in the year 33658")
    mtime = os.lstat(batch["late"] / "katas" / "01_scores.py").st_mtime
    with pytest.raises((ValueError, OverflowError)):  # control: the report crashed on it
        datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc)
    late = workspace(batch, batch["late"])
    assert late["katas"][0]["status"] == "passed" and late["katas"][0]["modified"] == "unknown"
    assert late["time"]["last_change"] == "unknown" and late["time"]["over_time"] is False
    assert any("modification time out of range" in flag for flag in late["flags"])
    assert "modified unknown" in batch["html"]


def test_a_long_message_in_every_check_is_kept_short(batch):
    namespace = {}
    exec(LOUD, namespace)
    with pytest.raises(RuntimeError) as raised:  # control: 100 kB a call
        namespace["attention_scores"](None, None)
    assert len(str(raised.value)) == 100_000
    messages = [test["message"] for test in check(batch, "loud")["tests"]]
    assert len(messages) > 1 and all(len(message) < 2100 and message.endswith("more characters)")
                                     for message in messages)
    loud = next(part for part in batch["html"].split('<section class="candidate"') if ". loud — " in part)
    assert len(loud) < 30_000 and len((batch["here"] / "grades.md.state.jsonl").read_text()) < 200_000


# --- candidate text reaches every channel escaped for it ---------------------------------------------

def test_the_attacks_carry_what_they_claim(batch):
    """Controls: the raw text holds the ESC sequence, a line that Markdown makes a heading, an image and a
    comment, and a CSV cell a spreadsheet runs as a formula."""
    here = batch["here"]
    assert os.readlink(here / "lying_link" / "katas" / "01_scores.py") == "/" + FAKE
    assert (here / NAME).is_dir() and "\x1b[2J" in NAME and NAME.startswith("=")
    old_cell = ("- lying_link: refused katas/01_scores.py: a link leaving the workspace (to /" + FAKE + ")").replace(
        "|", "\\|")  # how the report wrote a flag before
    assert _markup(old_cell) == {"heading", "image", "comment"}


def _markup(markdown):
    """The markup a CommonMark renderer finds in text written as Markdown: headings, images, HTML comments."""
    found = set()
    if re.search(r"^#{1,6} ", markdown, re.M):
        found.add("heading")
    if re.search(r"(?<!\\)!\[[^\]]*\]\(", markdown):
        found.add("image")
    if re.search(r"(?<!\\)<!--", markdown):
        found.add("comment")
    return found


def test_the_terminal_gets_no_control_character_and_no_fake_line(batch):
    output = batch["result"].output
    assert "\x1b" not in output and "<U+001B>[2J" in output
    assert not any(line.startswith(("## Reviewer", "  1. attacker", "Hire")) for line in output.splitlines())
    assert all(not escape.hidden_characters(line) for line in output.splitlines())


def test_the_markdown_report_gets_no_markup_from_candidate_text(batch):
    report = batch["markdown"]
    assert "\x1b" not in report and "a link leaving the workspace" in report
    assert _markup(report) == {"heading"}  # its own, below
    headings = [line for line in report.splitlines() if line.startswith("#")]
    ours = ["# Kata grading report", "## Integrity: needs review before any score", "## Ranking",
            "## What the bug names mean", "## Similar files", "## Candidates"]
    assert headings[:len(ours)] == ours
    assert headings[-3:] == ["## Totals per kata", "## Totals per status", "## Appendix: file hashes"]
    assert len(headings) == len(ours) + 3 + len(batch["report"]["workspaces"])  # and one for each candidate, ours
    assert all(re.match(r"### \d+\. ", line) for line in headings[len(ours):-3])


def test_csv_cells_never_start_a_formula(batch):
    rows = list(csv.DictReader(io.StringIO(batch["csv"])))
    cells = [row[column] for row in rows for column in ("candidate", "flags", "review", "bugs", "similar_to")]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@", "\t", "\r"))]
    assert any(row["candidate"] == "'" + NAME.replace("\x1b", "<U+001B>") for row in rows)
    assert "\x1b" not in batch["csv"]


def test_the_page_is_escaped_and_shows_hidden_characters(batch):
    page = batch["html"]
    assert "\x1b" not in page and "\u202e" not in page and "\u2066" not in page
    assert '<mark class="hidden">&lt;U+001B&gt;</mark>[2J' in page
    assert "<!-- " not in page and "## Reviewer sign-off" in page  # as text, in the flag or the message


def test_exception_and_printed_text_reach_the_terminal_escaped(batch):
    """`kata check` of the same file: its exception message and printed output are shown, escaped."""
    kata_file = batch["here"] / NAME / "katas" / "01_scores.py"
    plain = subprocess.run([sys.executable, kata_file], capture_output=True, text=True)  # control
    assert FAKE in plain.stdout and FAKE in plain.stderr
    result = run("check", "01", "--file", kata_file)
    assert "\x1b" not in result.output and "<U+001B>[2J" in result.output, result.output
    assert not any(line.startswith(("## Reviewer", "  1. attacker")) for line in result.output.splitlines())
    assert "RuntimeError" in check(batch, NAME)["tests"][0]["message"]


# --- the review page hides no code ----------------------------------------------------------------

def test_code_pushed_off_screen_is_flagged_and_marked(batch):
    first = OFFSCREEN.splitlines()[0]
    assert first[:120].strip() == "import numpy as np" and "np.sqrt = lambda" in first[120:]  # control
    notes = check(batch, "offscreen")["review"]
    assert any("code beyond column 120" in note and "line 1 (" in note for note in notes)
    assert f"{len(first.rstrip())} columns: wrapped" in batch["html"]


def test_bidi_controls_are_flagged_and_shown_where_they_are(batch):
    namespace = {}
    exec(compile(TROJAN, "trojan.py", "exec"), namespace)  # control: it returns before the scale
    import numpy as np

    q = k = np.eye(4)
    assert np.allclose(namespace["attention_scores"](q, k), q @ k.T)
    trojan = check(batch, "trojan")
    assert trojan["status"] == "failed"
    assert any("<U+202E>" in note and "line 5" in note for note in trojan["review"])
    assert '<mark class="hidden">&lt;U+202E&gt;</mark>' in batch["html"]


def test_review_and_escaping_leave_plain_code_and_text_alone():
    from checker.hiring import review

    assert review.reasons(SOLUTION.read_bytes()) == []
    assert review.reasons(b"\xef\xbb\xbfx = 1\r\ny = 2\r\n") == []  # a BOM and Windows line ends
    plain = "interviews/ada_lovelace: 01 passed"
    assert escape.terminal(plain) == escape.markdown(plain) == escape.csv_cell(plain) == plain


# --- the guards behind the guards: a check or a section that fails is one row, never the batch ---------

def check_that_cannot_come_back(*args, **kwargs):
    """A check object a worker cannot send back (a lambda does not pickle)."""
    return {"kata": "01", "unpicklable": lambda: 0}


def check_that_kills_its_worker(kata_id, path, *args):
    """A check whose grading worker process dies (as one the kernel kills for its memory would)."""
    if path.startswith("dies/"):
        os._exit(9)
    return real_check_one(kata_id, path, *args)


def test_a_check_that_kills_its_worker_is_that_workspaces_error_and_the_batch_goes_on(batch, monkeypatch):
    from checker.hiring import grade as grading

    monkeypatch.chdir(batch["here"])
    assert run("pack", "dies", "--katas", "01", "--seed", 5).exit_code == 0
    (batch["here"] / "dies" / "katas" / "01_scores.py").write_bytes(SOLUTION.read_bytes())
    monkeypatch.setattr(grading, "check_one", check_that_kills_its_worker)
    result = run("grade", "honest", "dies", "honest_too", "--jobs", 1, "--json", "--timeout", 5,
                 "--report", "dies.md")
    assert result.exit_code == 0, result.output
    graded = {w["path"]: w["katas"][0] for w in json.loads(result.stdout)["workspaces"]}
    assert graded["honest"]["status"] == graded["honest_too"]["status"] == "passed"
    assert graded["dies"]["status"] == "error" and "worker process died" in graded["dies"]["tests"][0]["message"]


def test_a_check_or_a_page_section_that_fails_is_that_candidates_row(batch, monkeypatch):
    from checker.hiring import grade as grading
    from checker.hiring import review_page

    def broken_section(candidate, kata):
        raise ValueError("a section that cannot be drawn")

    monkeypatch.setattr(grading, "check_one", check_that_cannot_come_back)  # the workers fork after this
    monkeypatch.setattr(review_page, "_kata", broken_section)
    page = batch["here"] / "guarded.html"
    result = run("grade", "honest", "--json", "--timeout", 5, "--html", page, "--report", "guarded.md")
    assert result.exit_code == 0, result.output
    graded = json.loads(result.stdout)["workspaces"][0]["katas"][0]
    assert graded["status"] == "error" and "the grader could not check it" in graded["tests"][0]["message"]
    assert "This section could not be drawn (ValueError: a section that cannot be drawn)" in page.read_text()


def test_a_usage_mistake_quoting_a_hostile_name_is_escaped_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("grade", "gone" + ESC)
    assert result.exit_code == 2 and "no such folder: gone<U+001B>[2J" in result.output and "\x1b" not in result.output


@pytest.mark.parametrize("cell", ["=1+2", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1", " =1", "\u22121", "\uff1d1"])
def test_no_csv_cell_starts_a_formula(cell):
    assert not escape.csv_cell(cell).lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r", "\u2212", "\uff1d"))

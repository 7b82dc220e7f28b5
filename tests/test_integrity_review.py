"""Round 3 of grading integrity (issue 29), the review side: what the reviewer sees against what Python
runs, what the review scan finds in code that reaches out without an import line, the parent's cost of a
hostile file on the page and the scan, and records a returned zip brings along.

Each attack comes with its control: the attack works outside the grader (Python runs the hidden code, the
obfuscated reach gets sys and a frame, the planted roster matches when trusted, the old rule misses the
id graded in two batches).
"""

import ast
import json
import os
import shutil
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from checker.engine import catalog
from checker.present import escape
from checker.cli import cli
from checker.hiring import concerns, grade, review, review_code, review_reach, workspaces
from checker.hiring import roster as rostering
from checker.hiring.pack import MANIFEST

SOLUTION = catalog.find("01").solution_path
COOKIE = b'''# -*- coding: utf-7 -*-
import numpy as np


def attention_scores(q, k):
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    # scaled by sqrt(d_k) +AAo-    return q +AEA- np.swapaxes(k, -1, -2)
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
'''
REACH = '''import typing
import numpy as np


def reach():
    sys = typing.sys                                         # sys without importing it
    frame = sys._getframe(0)                                 # a frame: every caller's globals
    builtins = getattr(typing, "sy" + "s").modules["builtins"]  # a built name, then the builtins
    gc = builtins.__import__("gc")
    objects = len(gc.get_objects())                          # every object of the interpreter
    ctypes = np.ctypeslib.ctypes                             # C calls
    size = ctypes.sizeof(ctypes.c_void_p)
    shell = getattr(sys.modules["os"], "sys" + "tem")        # os.system, by a built name
    code = bytes.fromhex("696d706f7274206f730a6f732e6765747069642829").decode()
    scope = {}
    exec(code, scope)                                        # code decoded from hex
    return sys, frame, objects, size, shell, scope
'''


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def page_of(source, kata_id="01"):
    """The review page's code view of `source` as kata `kata_id`'s file (no roster: the stub for seed 5)."""
    kata = SimpleNamespace(kata=kata_id, review=review.reasons(source))
    candidate = SimpleNamespace(files={kata_id: source}, record=None, seed=5, katas=[kata])
    return review_code.code(candidate, kata), kata.review


# --- what the reviewer sees against what Python runs -------------------------------------------------------

def test_a_coding_cookie_is_shown_as_python_decodes_it_and_is_a_concern():
    q, k = np.eye(2, 4), np.ones((3, 4))
    as_python = {}
    exec(compile(COOKIE, "cookie.py", "exec"), as_python)  # the control: Python runs the hidden, unscaled return
    as_read = {}
    exec(COOKIE.decode("utf-8"), as_read)  # what an editor or the old page shows: the scaled one
    assert np.allclose(as_python["attention_scores"](q, k), q @ k.T)
    assert np.allclose(as_read["attention_scores"](q, k), q @ k.T / 2)

    shown, reasons = page_of(COOKIE)
    assert "    return q @ np.swapaxes(k, -1, -2)</div>" in shown  # its own line, as Python reads it
    assert "Shown as Python decodes it: utf-7" in shown
    cookie = [reason for reason in reasons if reason.startswith("a coding cookie")]
    assert cookie and "utf-7" in cookie[0] and concerns.of_review(cookie[0]) == concerns.TAMPERING
    assert review.decode(SOLUTION.read_bytes()) == (SOLUTION.read_text(), "utf-8")  # a plain file: no note
    assert review.decode(b"\xef\xbb\xbfx = 1\n") == ("x = 1\n", "utf-8")


def test_code_below_the_page_cut_is_said_never_hidden_silently():
    honest = SOLUTION.read_text()
    padded = honest + "#\n" * (review.PAGE_LINES - honest.count("\n"))
    source = (padded + "\n\ndef attention_scores(q, k):\n    return np.asarray(q) @ np.asarray(k).T\n").encode()
    namespace = {}
    exec(source, namespace)  # the control: the definition below the cut is the one that runs
    q, k = np.eye(2, 4), np.ones((3, 4))
    assert np.allclose(namespace["attention_scores"](q, k), q @ k.T)

    shown, reasons = page_of(source)
    below = [reason for reason in reasons if reason.startswith("code below the page's 400-line cut")]
    assert below and "def attention_scores (line 403)" in below[0]
    assert concerns.of_review(below[0]) == concerns.TAMPERING
    assert "lines 401-404 not shown" in shown and "def attention_scores (line 403)" in shown
    comments = (padded + "# a long tail of comments\n" * 20).encode()  # no code below the cut: no concern
    assert not [reason for reason in review.reasons(comments) if reason.startswith("code below")]
    assert "lines 401-420 not shown" in page_of(comments)[0]


def test_a_refused_links_target_is_short_and_on_one_line(tmp_path):
    folder = tmp_path / "ada"
    (folder / "katas").mkdir(parents=True)
    outside = tmp_path / ("x\n01 scores  passed  100.0\n" + "y" * 200)
    outside.mkdir()
    target = outside / "z.py"
    target.write_text("import numpy as np\n")
    kata = catalog.find("01")
    os.symlink(target, folder / "katas" / kata.filename)
    assert "\n01 scores  passed" in os.path.realpath(folder / "katas" / kata.filename)  # the control
    data, digest, why = workspaces.read_kata_file(folder, kata)
    assert data is None and why.startswith("a link leaving the workspace")
    assert "\n" not in why and "<U+000A>01 scores passed" in why
    assert len(why) < workspaces.LINK_CHARS + 80 and "more characters cut" in why


def test_bidirectional_controls_are_a_concern_of_their_own():
    trojan = '    """\u202e return 0 \u2066"""\n'
    source = SOLUTION.read_text().replace("    d_k = q.shape[-1]\n", trojan + "    d_k = q.shape[-1]\n").encode()
    reasons = review.reasons(source)
    bidi = [reason for reason in reasons if "bidirectional-text" in reason]
    assert bidi and "<U+202E>" in bidi[0] and "<U+2066>" in bidi[0]
    assert concerns.of_review(bidi[0]) == concerns.TAMPERING


# --- the review scan works on what the code reaches ------------------------------------------------------

def test_the_scan_finds_what_code_reaches_without_an_import_line(tmp_path):
    (tmp_path / "reach.py").write_text(REACH)
    sys.path.insert(0, str(tmp_path))
    try:  # the control: written this way, the code gets sys, a frame, every object, C, os.system, exec'd os
        import reach

        got_sys, frame, objects, size, shell, scope = reach.reach()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("reach", None)
    assert got_sys is sys and frame.f_code.co_name == "reach" and objects > 1000 and size == 8
    assert shell is os.system and scope["os"] is os

    found = review.reasons(REACH)
    for note in ("reaches module sys through typing.sys", "uses ._getframe", "calls __import__() (builtins.__import__)",
                 "reaches 'gc' through __import__()", "uses .get_objects", "reaches module ctypes through "
                 "np.ctypeslib.ctypes", "reaches 'system' through getattr() of a built name (runs a shell command)",
                 "builds the name 'sys' from pieces ('sy' + 's')", "holds Python code encoded in hex (line 14): imports os",
                 "in the code exec() runs: imports os"):
        assert note in found, (note, found)
    assert all(concerns.of_review(note) == concerns.ESCAPE for note in found)
    assert len(found) >= 6  # the same reach written plainly draws six notes, and three before this scan


@pytest.mark.parametrize("call", ["os.system('id')", "subprocess.run(['id'])", "os.popen('id')", "pty.spawn('sh')",
                                  "run(['id'])"])
def test_calls_that_run_commands_are_named_as_such(call):
    source = f"import os, pty, subprocess\nfrom subprocess import run\n\ndef f():\n    {call}\n"
    assert f"runs a shell command ({call.split('(')[0]})" in review.reasons(source)


def test_honest_files_draw_no_note_from_the_scan():
    files = [kata.solution_path for kata in catalog.all_katas()]
    files += [path for kata in catalog.all_katas() for part in ("correct", "zoo", "torch")
              for path in sorted((kata.folder / part).glob("*.py"))]
    assert len(files) > 300
    noted = {str(path): reasons for path in files
             if (reasons := [r for r in review.reasons(path.read_bytes()) if not r.startswith("code beyond column")])}
    assert noted == {}


# --- the parent's cost on the page and the scan: bounded by stated constants -----------------------------

def test_a_comment_of_zero_width_spaces_is_one_note_and_one_badge():
    line = "# " + "\u200b" * 330_000
    source = (SOLUTION.read_text() + line + "\n").encode()
    assert len(source) > 990_000 and sum(map(escape.hidden, line)) == 330_000  # the control: a badge each before
    shown, reasons = page_of(source)
    assert [reason for reason in reasons if "hidden character" in reason] == [
        f"330,000 hidden characters <U+200B> (invisible characters: the code may not read as it runs) on line "
        f"{SOLUTION.read_text().count(chr(10)) + 1}"]
    assert shown.count("<mark") <= 3 and "&lt;U+200B&gt;×" in shown
    assert len(shown) < 20_000  # 13.9 MB before (measured with `kata grade --html`)


def test_the_page_is_bounded_whatever_the_file():
    """Alternating invisible characters defeat the run badge: the line cut and the file's byte budget hold."""
    line = "# " + "\u200b\u200c" * 4_000
    source = (SOLUTION.read_text() + (line + "\n") * 300).encode()
    shown, _ = page_of(source)
    assert len(shown) < review_code.CODE_BYTES + 64 * review_code.LINE_CHARS
    assert "more characters of this line not shown" in shown and "KB of a file's code" in shown
    assert shown.count("<mark") < review_code.CODE_BYTES // 30


def test_a_file_of_dead_functions_stops_the_scan_and_says_so():
    body = "def dead_{0}(q, k, v):\n    s = q @ k.T / np.sqrt(q.shape[-1]) + {0}\n    return s @ v\n\n"
    source = "import numpy as np\n\n" + "".join(body.format(i) for i in range(2_500)) + "import os\nos.system('id')\n"
    assert len(source) < review.SCAN_BYTES
    nodes = review_reach.walk(ast.parse(source), review_reach.NODES)
    assert sum(1 for _ in nodes) == review_reach.NODES and nodes.stopped  # the walk is cut at its constant
    found = review.reasons(source)
    assert f"scan stopped at {review_reach.NODES:,} nodes: the rest of the file was not scanned, read it in full" in found
    assert "imports os" in found  # a top-level import past the cap is still read (one node a statement)
    assert concerns.of_review(found[-1]) == concerns.TAMPERING  # no honest answer comes near: built to hide
    huge = source * 3
    assert any(reason.startswith("scan stopped: the file is") for reason in review.reasons(huge))


# --- records: the team's roster, never the one a zip brought ----------------------------------------------

def test_a_roster_a_returned_zip_brings_is_never_used(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("pack", tmp_path / "interviews" / "ada", "--katas", "01", "--seed", 41).exit_code == 0
    # on the candidate's machine (its own state: its key is not ours), a pack of its choosing
    monkeypatch.setenv("KATA_STATE_HOME", str(tmp_path / "candidate-machine"))
    assert run("pack", tmp_path / "mine" / "ada", "--katas", "01", "--seed", 7, "--minutes", 600).exit_code == 0
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    returned = tmp_path / "returned"
    shutil.copytree(tmp_path / "interviews" / "ada", returned / "ada")
    shutil.copy(tmp_path / "mine" / "ada" / MANIFEST, returned / "ada" / MANIFEST)
    for name in ("kata-roster.jsonl", "kata-roster.key"):
        shutil.copy(tmp_path / "mine" / name, returned / name)
    manifest = json.loads((returned / "ada" / MANIFEST).read_text())

    planted = rostering.match(returned / "ada", manifest, roster=returned / "kata-roster.jsonl")
    assert planted.flags == [] and planted.entry["minutes"] == 600  # the control: trusted, it would be obeyed
    result = run("grade", returned / "ada", "--json", "--timeout", 5)
    found = json.loads(result.stdout)["workspaces"][0]
    assert found["roster"] is None and "is not the team's roster" in found["flags"][0]
    assert concerns.of_flag(found["flags"][0]) == concerns.TAMPERING
    team = run("grade", returned / "ada", "--json", "--timeout", 5, "--roster",
               tmp_path / "interviews" / "kata-roster.jsonl")
    assert json.loads(team.stdout)["workspaces"][0]["flags"][0].startswith("UNMATCHED: pack id")  # not the team's
    at_home = json.loads(run("grade", tmp_path / "interviews" / "ada", "--json", "--timeout", 5).stdout)
    assert at_home["workspaces"][0]["flags"] == [] and at_home["workspaces"][0]["roster"]["seed"] == 41


def test_a_pack_id_graded_in_an_earlier_batch_is_a_shared_record_in_the_later(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, seed in (("ada", 41), ("bob", 42)):
        assert run("pack", tmp_path / "interviews" / name, "--katas", "01", "--seed", seed).exit_code == 0
    shutil.copy(SOLUTION, tmp_path / "interviews" / "ada" / "katas" / SOLUTION.name)
    shutil.copy(tmp_path / "interviews" / "ada" / MANIFEST, tmp_path / "interviews" / "bob" / MANIFEST)

    def flags(*folders):
        result = run("grade", *folders, "--json", "--timeout", 5)
        return {os.path.basename(w["path"]): w["flags"] for w in json.loads(result.stdout)["workspaces"]}

    assert flags(tmp_path / "interviews" / "bob") == {"bob": []}  # the control: alone, the old rule sees nothing
    (tmp_path / "kata-grade.state.jsonl.packs").unlink()  # forget it: ada's batch comes first
    assert flags(tmp_path / "interviews" / "ada") == {"ada": []}
    assert flags(tmp_path / "interviews" / "ada") == {"ada": []}  # the same hand-in graded again: no concern
    later = flags(tmp_path / "interviews" / "bob")["bob"]
    assert later and later[0].startswith("SHARED RECORD: pack") and "earlier batch" in later[0]
    assert "interviews/ada" in later[0] and concerns.of_flag(later[0]) == concerns.TAMPERING
    shutil.copytree(tmp_path / "interviews", tmp_path / "moved")
    assert flags(tmp_path / "moved" / "ada") == {"ada": []}  # the same files elsewhere: a round that moved

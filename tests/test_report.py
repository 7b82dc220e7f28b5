"""The grading report a hiring team decides from: scores, ranking, time, similarity, CSV, JSON and the review page.

One small batch is graded once for the module (through the CLI, with --csv and --html, then read back
with --resume --json); everything else is pure and cheap.
"""

import ast
import csv
import io
import json
import re
import os
import shutil
import subprocess
import time
import html
from html.parser import HTMLParser

import numpy as np
import pytest
from click.testing import CliRunner

from checker.engine import catalog
from checker.present import escape
from checker.hiring import exports, scoring
from checker.cli import cli
from checker.engine.catalog import ROSTER
from conftest import SLOW_ON_BIG, ZOO

HOSTILE_COMMENT = "# </pre><script>alert('owned')</script><img src=http://example.com/x.png>\n"


def run(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def renamed_copy(source):
    """What a copier hands in: every local variable renamed, comments gone, the layout rewritten."""
    tree = ast.parse(source)
    local = {node.id for function in ast.walk(tree) if isinstance(function, ast.FunctionDef)
             for node in ast.walk(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    local -= {arg.arg for node in ast.walk(tree) if isinstance(node, ast.arguments)
              for arg in node.posonlyargs + node.args + node.kwonlyargs}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in local:
            node.id = "my_" + node.id[::-1]
    return "# my own work\n" + ast.unparse(tree).replace("    ", "  ") + "\n"


# --- scores ------------------------------------------------------------------------------------------

def _check(kata_id, passed, status="failed", **extra):
    """A check object whose first `passed` hidden tests passed and the rest failed."""
    names = list(scoring.test_weights(catalog.find(kata_id)))
    tests = [{"name": name, "outcome": "passed" if i < passed else "failed", "bug": None, "message": ""}
             for i, name in enumerate(names)]
    return {"kata": kata_id, "file": "x.py", "status": status, "bugs": [], "tests": tests, "seconds": 0.1, **extra}


def test_k_of_n_checks_score_as_their_weights_say():
    weights = scoring.test_weights(catalog.find("01"))
    assert set(weights.values()) == {1.0}  # no marks: every check is worth one
    for k in (0, 6, len(weights)):
        score = scoring.kata_score(_check("01", k), seed=5)
        assert (score.passed, score.total) == (k, len(weights))
        assert score.score == round(100 * k / len(weights), 1)

    weights = scoring.test_weights(catalog.find("03"))
    assert weights["mask_bottom_right"] == 2  # the @weight(2) beside the test
    check = _check("03", 0)
    check["tests"] = [{**t, "outcome": "passed"} if t["name"] == "mask_bottom_right" else t for t in check["tests"]]
    assert scoring.kata_score(check, seed=5).score == round(100 * 2 / sum(weights.values()), 1)


def test_checks_that_never_ran_count_as_not_passed():
    check = _check("01", 3)
    check["tests"] = check["tests"][:3] + [{"name": "worked_example", "outcome": "timeout", "bug": None, "message": ""}]
    score = scoring.kata_score(check, seed=5)
    assert score.passed == 3 and score.total == len(scoring.test_weights(catalog.find("01")))


def _graded(kata, path, seed):
    from checker.hiring.grade import _for_graders
    from checker.engine.runner import check

    result = check(kata, path, seed=seed)
    return scoring.kata_score({**result.to_json(), **_for_graders(result)}, seed)


def test_kata_10_earns_the_same_for_each_planted_bug_fixed(tmp_path):
    from checker.hidden.debug import plants
    from checker.engine.runner import DEFAULT_SEED

    kata, planted = catalog.find("10"), list(plants.planted(7, DEFAULT_SEED))
    scores = []
    for fixed in range(len(planted) + 1):  # the planted stub with the first `fixed` bugs taken out
        path = tmp_path / f"fixed_{fixed}.py"
        path.write_text(plants.source_with(planted[fixed:]))
        graded = _graded(kata, path, 7)
        assert graded.plants["fixed"] == planted[:fixed]
        assert sorted(graded.plants["remaining"]) == sorted(planted[fixed:])
        scores.append(graded.score)
    steps = np.diff(scores)
    assert scores[0] == 0 and scores[-1] == 100 and steps.max() - steps.min() <= 1, scores  # about equal
    unknown = scoring.kata_score(_check("10", 0, details={"planted": planted, "remaining": None}), seed=7)
    assert unknown.plants["remaining"] is None and unknown.plants["fixed"] == [] and unknown.score < 100 / len(planted)




def test_kata_08_scores_its_four_kinds_apart(tmp_path):
    """The cap of 50 is for materializes-scores alone: a value bug scores as one, too slow is its own line."""
    from checker.sandbox import Limits

    kata = catalog.find("08")
    assert scoring.test_caps(kata) == {"memory_grows_with_blocks_not_table": (50, "materializes-scores")}
    untiled = _graded(kata, ZOO / "flash" / "materializes-scores--plain.py", 5)
    assert untiled.bugs == ["materializes-scores"] and untiled.passed == untiled.total - 1
    assert untiled.score == 50 and untiled.capped == "at most 50: materializes-scores"
    offset = _graded(kata, ZOO / "flash" / "mask-top-left.py", 5)  # a causal-offset value bug, tiled
    weights = scoring.test_weights(kata)
    by_weights = 100 * sum(w for name, w in weights.items() if offset.check["tests"][list(weights).index(name)]
                           ["outcome"] == "passed") / sum(weights.values())
    assert offset.bugs[0] == "mask-top-left" and not offset.capped and offset.score == round(by_weights, 1)
    slow_file = tmp_path / "slow.py"
    slow_file.write_text(kata.solution_path.read_text() + SLOW_ON_BIG)
    from checker.hiring.grade import _for_graders
    from checker.engine.runner import check

    result = check(kata, slow_file, Limits(seconds=3), seed=5)
    slow = scoring.kata_score({**result.to_json(), **_for_graders(result)}, 5)
    assert slow.status == "timeout" and slow.slow.startswith("correct, too slow for the limit: 1 of ")
    assert not slow.capped and 0 < slow.score < 100 and slow.score != offset.score != untiled.score
    assert _graded(kata, kata.solution_path, 5).score == 100


ZEROS = {"05": """import numpy as np


class KVCache:
    def __init__(self):
        self.n = 0

    def __len__(self):
        return self.n

    def append(self, k, v):
        self.n += k.shape[2]
        return np.zeros(k.shape[:2] + (self.n, k.shape[3])), np.zeros(v.shape[:2] + (self.n, v.shape[3]))


def cached_attention(x, cache, w_q, w_k, w_v, w_o, n_heads):
    b, t, d = x.shape
    cache.append(np.zeros((b, n_heads, t, d // n_heads)), np.zeros((b, n_heads, t, d // n_heads)))
    return np.zeros(x.shape)
""", "06": """import numpy as np


def rope(x, positions, base=10000.0):
    return np.zeros(np.shape(x))


def rope_attention(q, k, v, base=10000.0):
    return np.zeros(np.shape(q)[:-1] + np.shape(v)[-1:])
"""}


@pytest.mark.parametrize("kata_id", sorted(ZEROS))
def test_zeros_of_the_right_shape_earn_nothing(tmp_path, kata_id):
    """Checks any right-shaped answer passes count only beside a passed value check: all zeros scores 0."""
    kata = catalog.find(kata_id)
    path = tmp_path / kata.filename
    path.write_text(ZEROS[kata_id])
    zeros = _graded(kata, path, 5)
    passed = {test["name"] for test in zeros.check["tests"] if test["outcome"] == "passed"}
    assert passed and passed <= scoring.form_checks(kata)  # the control: these pass, and the table knows them
    assert zeros.score == 0
    assert _graded(kata, kata.solution_path, 5).score == 100  # form checks still count beside right values


def test_a_rubric_is_pairs_or_a_file(tmp_path):
    assert scoring.parse_rubric("03=2, kv-cache=3") == {"03": 2.0, "05": 3.0}
    (tmp_path / "rubric.yaml").write_text("'01': 1\ncausal-mask: 4\n")
    assert scoring.parse_rubric(str(tmp_path / "rubric.yaml")) == {"01": 1.0, "03": 4.0}
    for wrong in ("03", "03=x", "99=1", "03=-1"):
        with pytest.raises(scoring.RubricError):
            scoring.parse_rubric(wrong)


# --- one graded batch --------------------------------------------------------------------------------

NAMES = ("solved", "buggy", "copier", "untouched", "late", "crasher", "shady")
LONG_LINE = "    return undefined_mask  # a line of exactly ninety characters, to print whole: " + "x" * 5 + "END"
SHADY = """import subprocess, glob, numpy as np
found = glob.glob("/**/solutions/*.py", recursive=True)
exec("import os")
np.allclose = lambda *a, **k: True


def attention_scores(q, k):
    subprocess.run(["cat", "solutions/01_scores.py"])
    return q @ k.T
"""


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Seven packs of katas 01 and 03 (the team weighs 03 three times) and one of kata 10 with half its plants
    fixed, filled with answers of every kind, graded once."""
    from checker.hidden.debug import plants
    from checker.engine.runner import DEFAULT_SEED

    assert len(LONG_LINE) == 90
    here = tmp_path_factory.mktemp("report")
    old = os.getcwd()
    os.chdir(here)
    os.environ["NO_COLOR"] = "1"
    try:
        for name in NAMES:
            made = run("pack", name, "--katas", "01,03", "--seed", 5, "--minutes", 30, "--weights", "03=3")
            assert made.exit_code == 0, made.output
        assert run("pack", "debugger", "--katas", "10", "--seed", 5).exit_code == 0
        mask, scores = catalog.find("03"), catalog.find("01")
        for name in ("solved", "late"):
            for kata in (mask, scores):
                shutil.copy(kata.solution_path, here / name / "katas" / kata.filename)
        (here / "buggy" / "katas" / mask.filename).write_text(
            HOSTILE_COMMENT + (ZOO / "causal-mask" / "mask-top-left.py").read_text())
        (here / "copier" / "katas" / mask.filename).write_text(renamed_copy(mask.solution_path.read_text()))
        (here / "crasher" / "katas" / mask.filename).write_text(  # every call raises the same NameError
            f"import numpy as np\n\n\ndef causal_mask(n_q, n_k=None):\n{LONG_LINE}\n\n\n"
            "def attention(q, k, v, mask=None):\n    return undefined_attention\n")
        (here / "shady" / "katas" / scores.filename).write_text(SHADY)
        planted = list(plants.planted(5, DEFAULT_SEED))
        (here / "debugger" / "katas" / "10_debug_decoder.py").write_text(plants.source_with(planted[2:]))
        later = time.time() + 2 * 3600
        os.utime(here / "late" / "katas" / mask.filename, (later, later))
        everyone = (*NAMES, "debugger")
        text = run("grade", *everyone, "--timeout", 5, "--jobs", 2, "--report", "grades.md", "--csv", "grades.csv",
                   "--html", "review.html")
        assert text.exit_code == 0, text.output
        data = run("grade", *everyone, "--report", "grades.md", "--resume", "--json", "--html", "pages")
        assert data.exit_code == 0, data.output
        yield {"here": here, "text": text.output, "json": json.loads(data.stdout), "planted": planted,
               "csv": (here / "grades.csv").read_text(), "html": (here / "review.html").read_text(),
               "markdown": (here / "grades.md").read_text()}
    finally:
        os.chdir(old)
        os.environ.pop("NO_COLOR", None)


def _workspaces(batch):
    return {w["path"]: w for w in batch["json"]["workspaces"]}


def test_json_gains_scores_record_hashes_and_times(batch):
    report = batch["json"]
    assert set(report) == {"format", "isolation", "workspaces", "similar", "similarity_threshold"}
    for workspace in report["workspaces"]:
        assert set(workspace) == {"path", "name", "held", "seed", "katas", "flags", "rank", "score", "summary",
                                  "kata_version", "roster", "time", "similar"}
        weights = {"10": 1} if workspace["path"] == "debugger" else {"01": 1, "03": 3.0}
        assert workspace["roster"]["seed"] == 5 and workspace["roster"]["weights"] == weights
        assert set(workspace["time"]) == {"issued", "last_change", "span_seconds", "minutes", "over_time", "spread"}
        for check in workspace["katas"]:
            assert set(check) - {"plants", "follow_up"} == {"kata", "file", "status", "bugs", "tests", "seconds",
                                                            "sha256", "review", "score", "checks_passed",
                                                            "checks_total", "weight", "modified", "untouched",
                                                            "frontend", "slow", "capped"}
            assert ("follow_up" in check) == (check["status"] == "passed")  # kata defend's questions, passes only
    found = _workspaces(batch)
    assert found["solved"]["score"] == 100 and found["solved"]["rank"] == 1
    assert found["solved"]["summary"] == "2/2 katas · 100/100 · bugs: none named"
    assert found["untouched"]["score"] == 0 and found["untouched"]["rank"] == 6  # 0 like crasher and shady
    assert found["debugger"]["score"] == 50 and found["debugger"]["katas"][0]["plants"]["fixed"] == batch["planted"][:2]
    buggy = {check["kata"]: check for check in found["buggy"]["katas"]}
    assert buggy["03"]["bugs"][0] == "mask-top-left" and 0 < buggy["03"]["score"] < 100
    assert 0 < buggy["03"]["checks_passed"] < buggy["03"]["checks_total"]
    assert found["buggy"]["score"] == round(buggy["03"]["score"] * 3 / 4, 1)  # 01 not started, 03 weighs 3
    assert found["buggy"]["summary"].startswith("0/2 katas · ")
    assert [check["untouched"] for check in found["buggy"]["katas"]] == [True, False]  # 01: the stub, as issued


def test_time_is_issued_last_change_span_and_over_time(batch):
    found = _workspaces(batch)
    assert found["late"]["time"]["over_time"] and found["late"]["time"]["span_seconds"] > 30 * 60
    for name in ("solved", "buggy", "untouched"):
        assert not found[name]["time"]["over_time"] and found[name]["time"]["minutes"] == 30
        assert found[name]["time"]["issued"] <= found[name]["time"]["last_change"]
    assert "over time (2 h 00 min of 30 min)" in batch["text"]


def test_the_copy_is_flagged_and_honest_solvers_show_their_figure(batch):
    pairs = {(p["kata"], p["a"], p["b"]): p["similarity"] for p in batch["json"]["similar"]}
    assert pairs[("03", "copier", "solved")] == 1.0
    # the buggy file is the bug zoo's mask-top-left.py, written in the reference's own style (0.76 beside it, where
    # kata 03's independent honest answers reach 0.65): whether it is flagged is the detector's call, not asserted
    assert pairs[("01", "late", "solved")] == 1.0  # the same file twice, whoever wrote it
    assert not any("untouched" in pair for pair in pairs)  # the stub as given is nobody's code
    assert "kata 03: copier ~ solved  1.00" in batch["text"]
    reference = {p["a"]: p for p in batch["json"]["similar"] if p["kind"] == "reference" and p["kata"] == "03"}
    assert set(reference) - {"buggy"} == {"copier", "solved", "late"}  # the shipped answer, as it is or renamed
    code_lines = len(catalog.find("03").solution_path.read_text().splitlines())
    for pair in batch["json"]["similar"]:  # where the match is, on both sides, within each file
        assert pair["lines_a"] and pair["lines_b"]
        assert all(1 <= first <= last <= code_lines for first, last in pair["lines_a"] + pair["lines_b"])
    assert "## Similar files" in (batch["here"] / "grades.md").read_text()


def test_terminal_ranking(batch):
    text = batch["text"]
    ranking = text[text.index("Ranking"):].splitlines()
    assert ranking[1].startswith("  1. ") and "100.0  2/2 katas · 100/100" in ranking[1]
    lines = {line.split()[1]: line for line in ranking[1:len(NAMES) + 2]}
    assert lines["untouched"].startswith("  6. untouched")
    # integrity before score: held, said first on its line, ranked after every clean candidate
    assert lines["shady"].startswith(f"  {len(NAMES) + 1}. shady      HELD: tampering: kata 01: patches np.allclose")
    assert "over time (2 h 00 min of 30 min)" in lines["late"]
    assert "grading" not in text  # no progress bar off a terminal
    assert "(2 jobs)" in text


def test_csv_is_one_row_per_candidate_and_kata(batch):
    rows = list(csv.DictReader(io.StringIO(batch["csv"])))
    assert list(rows[0]) == exports.CSV_COLUMNS
    assert len(rows) == 2 * len(NAMES) + 1  # and the debugger's kata 10
    buggy = next(row for row in rows if row["candidate"] == "buggy" and row["kata"] == "03")
    assert buggy["status"] == "failed" and buggy["bugs"].startswith("mask-top-left") and buggy["kata_weight"] == "3"
    assert len(buggy["sha256"]) == 64 and buggy["over_time"] == "no"
    assert next(row for row in rows if row["candidate"] == "copier" and row["kata"] == "03")["similar_to"].startswith(
        "late (1.00); solved (1.00); reference solution (1.00)")


def test_the_roster_records_minutes_and_weights(batch):
    entries = [json.loads(line) for line in (batch["here"] / ROSTER).read_text().splitlines()][:len(NAMES)]
    assert all(entry["minutes"] == 30 and entry["weights"] == {"01": 1, "03": 3.0} for entry in entries)
    assert [entry["folder"] for entry in entries] == list(NAMES)  # relative to the roster


# --- the review page ---------------------------------------------------------------------------------

class _Parts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attributes, self.text, self.classes = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += attrs
        self.classes += [value for name, value in attrs if name == "class"]

    def handle_data(self, data):
        self.text.append(data)


def test_the_page_has_its_parts_and_no_way_out(batch):
    page = _Parts()
    page.feed(batch["html"])
    assert "script" not in page.tags and "img" not in page.tags and "link" not in page.tags
    assert all(not value.startswith(("http", "//", "javascript")) for name, value in page.attributes
               if name in ("src", "href"))
    text = "".join(page.text)
    assert HOSTILE_COMMENT.strip() in text  # the candidate's code, shown as text
    assert "ranking" in page.classes and page.tags.count("section") == len(NAMES) + 1
    untouched = sum(k["untouched"] for w in batch["json"]["workspaces"] for k in w["katas"])
    assert page.classes.count("code") == 2 * len(NAMES) + 1 - untouched  # every kata's code, but a stub as issued
    assert "grid" in page.classes and "differs" in page.classes  # kata 03's weight picture, drawn as a table
    assert "mask-top-left" in text and "over time" in text and "similar to solved" in text
    assert page.classes.count("pair") >= 3 and "hit" in page.classes  # each pair side by side, matches marked
    assert "never a verdict" in text
    assert "default-src 'none'" in batch["html"]


# --- the Markdown report, the review page's parts ------------------------------------------------------

def test_the_markdown_report_opens_with_what_a_manager_forwards(batch):
    found = _workspaces(batch)
    first_screen = batch["markdown"].split("\n## Candidates")[0]
    assert first_screen.index("## Ranking") < first_screen.index("## Similar files") < \
        first_screen.index("## Kata 10: planted bugs")
    ranking = first_screen.split("## Ranking")[1].split("\n## ")[0]
    rows = {line.split(" | ")[1]: line for line in ranking.splitlines() if line.startswith("| ")
            and line.split(" | ")[1] in found}
    assert set(rows) == set(found)
    for name, workspace in found.items():
        scores = {k["kata"]: f"{k['score']:.0f}" for k in workspace["katas"]}
        cells = rows[name].split(" | ")
        assert cells[0] == f"| {workspace['rank']}" and cells[2] == f"**{workspace['score']:.1f}**"
        assert [cell.split(" ")[0] for cell in cells[3:6]] == [scores.get(k, "-") for k in ("01", "03", "10")]
        assert " of 30 min" in cells[6] or name == "debugger"  # time used, of the pack's minutes
    assert "**over time**" in rows["late"] and "**over time**" not in rows["solved"]
    # The closest first (the files it matches at 1.00: the reference and the two who handed it in), then a count.
    assert re.search(r"similar to ([a-z ]+, )*solved(, [a-z ]+)*(, \d+ more)? \(kata 03\)", rows["copier"]), rows["copier"]
    assert "0 (error)" in rows["crasher"]
    assert "**held: tampering**: kata 01: patches np.allclose" in rows["shady"]
    assert "(mask-top-left)" in rows["buggy"] and "0 (untouched)" in rows["buggy"]
    fixed, remaining = batch["planted"][:2], batch["planted"][2:]
    assert f"| debugger | 2 of 4: {', '.join(fixed)} | {', '.join(sorted(remaining))} |" in first_screen


def _texts(html):
    parts = _Parts()
    parts.feed(html)
    return parts.text


def _section(html, name):
    return next(part for part in html.split('<section class="candidate"')[1:] if f". {name} — " in part)


def test_the_page_shows_what_the_candidate_wrote_against_the_stub(batch):
    section = _Parts()
    section.feed(_section(batch["html"], "solved"))  # the reference: the stub's docstrings, its own code
    assert section.classes.count("l add") > 0 and section.classes.count("l del") > 0  # written; TODOs removed
    assert "fold" in section.classes
    assert "unchanged lines of the stub" in "".join(section.text)
    kept = [line for line in catalog.find("03").stub_path.read_text().splitlines()  # the stub's lines kept
            if line.strip() and line in catalog.find("03").solution_path.read_text().splitlines()]
    code = _section(batch["html"], "solved").split("<h3>03 ")[1]
    folded = "".join(part.split("</details>")[0] for part in code.split('<details class="fold">')[1:])
    inside = sum(escape.html(line) in folded for line in kept)
    assert inside >= 0.7 * len(kept), (inside, len(kept))  # the stub's docstrings folded, not shown
    assert HOSTILE_COMMENT.strip() in "".join(_texts(_section(batch["html"], "buggy")))  # a file unlike the stub


def test_the_same_error_from_many_checks_is_one_box_with_a_count(batch):
    crasher = {k["kata"]: k for k in _workspaces(batch)["crasher"]["katas"]}["03"]
    failing = [t for t in crasher["tests"] if t["outcome"] != "passed"]
    errors = [t["message"].split(" raised ", 1)[1] for t in failing if " raised " in t["message"]]
    most = max(errors.count(error) for error in errors)
    assert most > 5
    section = _section(batch["html"], "crasher").split("<h3>03 ")[1]
    assert f"<b>{most} checks</b>" in section
    assert section.count('<div class="check') == len(set(errors)) + len(failing) - len(errors)


def test_concerns_are_ranked_by_severity_with_what_the_sandbox_refused(batch):
    section = _Parts()
    section.feed(_section(batch["html"], "shady"))
    kinds = [value.removeprefix("sev-") for value in section.classes if value.startswith("sev-")]
    assert kinds[0] == "tampering" and kinds == sorted(kinds, key=["tampering", "reaching-out", "record", "time",
                                                                   "similar", "note"].index)
    text = "".join(section.text)
    assert "kata 01: patches np.allclose" in text and "kata 01: calls exec()" in text
    assert "kata 01: the sandbox refused it: PermissionError" in text


def test_html_dir_writes_an_index_and_a_page_per_candidate(batch):
    folder = batch["here"] / "pages"
    names = sorted(path.name for path in folder.iterdir())
    assert "index.html" in names and len(names) == len(NAMES) + 2
    index = (folder / "index.html").read_text()
    for name in names[:-1] if names[-1] == "index.html" else [n for n in names if n != "index.html"]:
        assert f'href="{name}"' in index
        alone = (folder / name).read_text()
        assert alone.count('<section class="candidate"') == 1 and 'href="index.html"' in alone
        assert "default-src 'none'" in alone


# --- the page in a browser: a phone, a printer ---------------------------------------------------------

CHROMIUM = shutil.which("chromium")
WIDE, PHONE = 1440, 390  # px: a laptop's width and an iPhone 12-15's
# a page of the test's own (not the review page, whose policy allows no script): it loads the review page in
# frames of a laptop's and a phone's width and writes what their layout measured into the DOM Chromium dumps
MEASURE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="wide" src="review.html" style="width:%dpx;height:900px;border:0"></iframe>
<iframe id="phone" src="review.html" style="width:%dpx;height:844px;border:0"></iframe><pre id="out">waiting</pre>
<script>
var measured = {}, count = 0;
function measure(frame) {
  var d = frame.contentDocument, w = frame.contentWindow, all = d.querySelectorAll("body *");
  var inside = function (label) {
    return Array.prototype.map.call(d.querySelectorAll('td[data-label="' + label + '"]'), function (td) {
      var r = td.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= w.innerWidth + 0.5; });
  };
  var code = d.querySelector("div.code").getBoundingClientRect(), check = d.querySelector(".check").getBoundingClientRect();
  measured[frame.id] = {viewport: w.innerWidth, scrollWidth: d.documentElement.scrollWidth,
    beyond: Array.prototype.filter.call(all, function (e) { return e.getBoundingClientRect().right > w.innerWidth + 0.5; })
      .slice(0, 5).map(function (e) { return e.tagName + "." + e.className; }),
    ranking: d.querySelector("table.ranking").getBoundingClientRect().top,
    codeRight: code.right, checkLeft: check.left, codeBottom: code.bottom, checkTop: check.top,
    time: inside("time used"), flags: inside("flags"), similar: inside("similar to")};
  if (++count == 2) document.getElementById("out").textContent = "MEASURED " + JSON.stringify(measured);
}
document.getElementById("wide").onload = function () { measure(this); };
document.getElementById("phone").onload = function () { measure(this); };
</script></body></html>
"""


@pytest.fixture(scope="module")
def browser(batch, tmp_path_factory):
    """The page measured at a laptop's and a phone's width and printed to PDF, by two Chromiums at once."""
    if not CHROMIUM:
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does)")
    home, here = tmp_path_factory.mktemp("chromium"), batch["here"]
    (here / "measure.html").write_text(MEASURE % (WIDE, PHONE))
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu"]
    runs = [subprocess.Popen(command + ["--allow-file-access-from-files", "--virtual-time-budget=10000", "--dump-dom",
                                        f"file://{here / 'measure.html'}"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env={**os.environ, "HOME": str(home / "a")}),
            subprocess.Popen(command + ["--no-pdf-header-footer", f"--print-to-pdf={here / 'review.pdf'}",
                                        f"file://{here / 'review.html'}"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env={**os.environ, "HOME": str(home / "b")})]
    (dom, errors), _ = [run.communicate(timeout=120) for run in runs]
    dom = dom.decode(errors="replace")
    assert "MEASURED " in dom, errors.decode(errors="replace")[-2000:]
    return {"measured": json.loads(html.unescape(dom.split("MEASURED ", 1)[1].split("</pre>")[0])),
            "pdf": here / "review.pdf"}


def test_on_a_laptop_the_ranking_leads_and_code_sits_beside_its_checks(browser):
    wide = browser["measured"]["wide"]
    assert wide["viewport"] == WIDE and wide["scrollWidth"] <= WIDE and wide["ranking"] < 300
    assert wide["codeRight"] <= wide["checkLeft"]  # two columns: the code, then its checks


def test_on_a_phone_nothing_scrolls_sideways_and_time_flags_similarity_show(browser):
    phone = browser["measured"]["phone"]
    assert phone["viewport"] == PHONE
    assert phone["scrollWidth"] <= PHONE and phone["beyond"] == [], phone
    assert phone["codeBottom"] <= phone["checkTop"]  # one column: the checks below the code
    for cells in (phone["time"], phone["flags"], phone["similar"]):  # a row each, all on screen
        assert len(cells) == len(NAMES) + 1 and all(cells), phone


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="pdftotext is not installed (apt-get install poppler-utils)")
def test_printed_the_page_keeps_a_90_character_line_whole(browser):
    assert browser["pdf"].is_file()
    text = subprocess.run(["pdftotext", "-layout", str(browser["pdf"]), "-"], capture_output=True, text=True).stdout
    assert any(" ".join(LONG_LINE.split()) in " ".join(line.split()) for line in text.splitlines())  # one line
    pages = text.count("\f")
    assert pages <= 3 * (len(NAMES) + 1), pages  # a few pages a candidate, not dozens (pairs: a table)
    assert "their side-by-side views are on the screen page only" in " ".join(text.split())

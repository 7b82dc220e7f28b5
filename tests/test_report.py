"""The grading report a hiring team decides from: scores, ranking, time, similarity, CSV, JSON and the review page.

One small batch is graded once for the module (through the CLI, with --csv and --html, then read back
with --resume --json); everything else is pure and cheap.
"""

import ast
import csv
import io
import itertools
import json
import os
import shutil
import subprocess
import time
import zlib
from html.parser import HTMLParser

import numpy as np
import pytest
from click.testing import CliRunner

from checker import catalog
from checker.hiring import exports, scoring, similarity
from checker.cli import cli
from checker.hiring.pack import ROSTER
from conftest import ZOO

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


def test_kata_10_says_which_planted_bugs_were_fixed():
    from checker.hidden.debug import plants
    from checker.runner import DEFAULT_SEED

    planted = list(plants.planted(7, DEFAULT_SEED))
    weights = scoring.test_weights(catalog.find("10"))
    failed = _check("10", 0, details={"planted": planted, "remaining": planted[1:]})
    score = scoring.kata_score(failed, seed=7)
    assert score.plants == {"planted": planted, "fixed": planted[:1], "remaining": planted[1:]}
    assert score.score == round(100 * weights["planted_bugs_fixed"] / len(planted) / sum(weights.values()), 1)
    solved = scoring.kata_score(_check("10", len(weights), status="passed"), seed=7)
    assert solved.plants["fixed"] == planted and solved.plants["remaining"] == [] and solved.score == 100
    unknown = scoring.kata_score(_check("10", 0, details={"planted": planted, "remaining": None}), seed=7)
    assert unknown.plants["remaining"] is None and unknown.plants["fixed"] == []


def test_a_rubric_is_pairs_or_a_file(tmp_path):
    assert scoring.parse_rubric("03=2, kv-cache=3") == {"03": 2.0, "05": 3.0}
    (tmp_path / "rubric.yaml").write_text("'01': 1\ncausal-mask: 4\n")
    assert scoring.parse_rubric(str(tmp_path / "rubric.yaml")) == {"01": 1.0, "03": 4.0}
    for wrong in ("03", "03=x", "99=1", "03=-1"):
        with pytest.raises(scoring.RubricError):
            scoring.parse_rubric(wrong)


# --- one graded batch --------------------------------------------------------------------------------

NAMES = ("solved", "buggy", "copier", "untouched", "late")


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Five packs of katas 01 and 03 (the team weighs 03 three times), filled, graded once."""
    here = tmp_path_factory.mktemp("report")
    old = os.getcwd()
    os.chdir(here)
    os.environ["NO_COLOR"] = "1"
    try:
        for name in NAMES:
            made = run("pack", name, "--katas", "01,03", "--seed", 5, "--minutes", 30, "--weights", "03=3")
            assert made.exit_code == 0, made.output
        mask, scores = catalog.find("03"), catalog.find("01")
        for name in ("solved", "late"):
            for kata in (mask, scores):
                shutil.copy(kata.solution_path, here / name / "katas" / kata.filename)
        (here / "buggy" / "katas" / mask.filename).write_text(
            HOSTILE_COMMENT + (ZOO / "causal-mask" / "mask-top-left.py").read_text())
        (here / "copier" / "katas" / mask.filename).write_text(renamed_copy(mask.solution_path.read_text()))
        later = time.time() + 2 * 3600
        os.utime(here / "late" / "katas" / mask.filename, (later, later))
        text = run("grade", *NAMES, "--timeout", 5, "--jobs", 2, "--report", "grades.md", "--csv", "grades.csv",
                   "--html", "review.html")
        assert text.exit_code == 0, text.output
        data = run("grade", *NAMES, "--report", "grades.md", "--resume", "--json")
        assert data.exit_code == 0, data.output
        yield {"here": here, "text": text.output, "json": json.loads(data.stdout),
               "csv": (here / "grades.csv").read_text(), "html": (here / "review.html").read_text()}
    finally:
        os.chdir(old)
        os.environ.pop("NO_COLOR", None)


def _workspaces(batch):
    return {w["path"]: w for w in batch["json"]["workspaces"]}


def test_json_gains_scores_record_hashes_and_times(batch):
    report = batch["json"]
    assert set(report) == {"format", "isolation", "workspaces", "similar", "similarity_threshold"}
    for workspace in report["workspaces"]:
        assert set(workspace) == {"path", "seed", "katas", "flags", "rank", "score", "summary", "kata_version",
                                  "roster", "time", "similar"}
        assert workspace["roster"]["seed"] == 5 and workspace["roster"]["weights"] == {"01": 1, "03": 3.0}
        assert set(workspace["time"]) == {"issued", "last_change", "span_seconds", "minutes", "over_time"}
        for check in workspace["katas"]:
            assert set(check) == {"kata", "file", "status", "bugs", "tests", "seconds", "sha256", "review",
                                  "frontend", "score", "checks_passed", "checks_total", "weight", "modified",
                                  "untouched"}
    found = _workspaces(batch)
    assert found["solved"]["score"] == 100 and found["solved"]["rank"] == 1
    assert found["solved"]["summary"] == "2/2 katas · 100/100 · bugs: none named"
    assert found["untouched"]["score"] == 0 and found["untouched"]["rank"] == 5  # ranks 1, 1 (late), 3, 4, 5
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
    assert ("03", "buggy", "solved") not in pairs and ("03", "buggy", "copier") not in pairs
    assert pairs[("01", "late", "solved")] == 1.0  # the same file twice, whoever wrote it
    assert not any("untouched" in pair for pair in pairs)  # the stub as given is nobody's code
    assert "kata 03: copier ~ solved  1.00" in batch["text"]


def test_terminal_ranking(batch):
    text = batch["text"]
    ranking = text[text.index("Ranking"):].splitlines()
    assert ranking[1].startswith("  1. ") and "100.0  2/2 katas · 100/100" in ranking[1]
    assert ranking[5].startswith("  5. untouched")
    assert "grading" not in text  # no progress bar off a terminal


def test_csv_is_one_row_per_candidate_and_kata(batch):
    rows = list(csv.DictReader(io.StringIO(batch["csv"])))
    assert list(rows[0]) == exports.CSV_COLUMNS
    assert len(rows) == 2 * len(NAMES)
    buggy = next(row for row in rows if row["candidate"] == "buggy" and row["kata"] == "03")
    assert buggy["status"] == "failed" and buggy["bugs"].startswith("mask-top-left") and buggy["kata_weight"] == "3"
    assert len(buggy["sha256"]) == 64 and buggy["over_time"] == "no"
    assert next(row for row in rows if row["candidate"] == "copier" and row["kata"] == "03")["similar_to"] == \
        "late (1.00); solved (1.00)"


def test_the_roster_records_minutes_and_weights(batch):
    entries = [json.loads(line) for line in (batch["here"] / ROSTER).read_text().splitlines()]
    assert all(entry["minutes"] == 30 and entry["weights"] == {"01": 1, "03": 3.0} for entry in entries)


# --- similarity --------------------------------------------------------------------------------------

def test_independent_correct_variants_are_not_flagged():
    """The katas' correct variants (and references) are independent answers: none may read as a copy."""
    pairs = flagged = 0
    for kata in catalog.all_katas():
        files = [kata.solution_path] + kata.files("correct")
        tokens = [similarity.normalised(path.read_bytes(), kata.id) for path in files]
        for a, b in itertools.combinations([t for t in tokens if t is not None], 2):
            pairs += 1
            flagged += similarity.similarity(a, b) >= similarity.THRESHOLD
    assert pairs > 150 and flagged == 0


@pytest.mark.parametrize("kata", [k for k in catalog.all_katas() if k.id != "10"], ids=str)
def test_a_renamed_and_reformatted_copy_is_flagged(kata):
    source = kata.solution_path.read_text()
    copy = renamed_copy(source)
    assert copy != source
    files = {"original": {kata.id: source.encode()}, "copy": {kata.id: copy.encode()}}
    pairs = similarity.flagged(files)
    assert [(p.a, p.b) for p in pairs] == [("copy", "original")] and pairs[0].similarity >= 0.95


def test_untouched_stubs_are_not_compared():
    stub = catalog.find("05").stub_path.read_bytes()
    assert similarity.flagged({"a": {"05": stub}, "b": {"05": stub}}) == []


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
    assert "ranking" in page.classes and page.tags.count("section") == len(NAMES)
    assert page.classes.count("code") == 2 * len(NAMES)  # every kata's code
    assert "grid" in page.classes and "differs" in page.classes  # kata 03's weight picture, drawn as a table
    assert "mask-top-left" in text and "over time" in text and "similar to solved" in text
    assert "default-src 'none'" in batch["html"]


def _png_pixels(data):
    """An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) as an (h, w, 3) array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, [], None
    while position < len(data):
        length = int.from_bytes(data[position:position + 4], "big")
        kind, body = data[position + 4:position + 8], data[position + 8:position + 8 + length]
        header = body if kind == b"IHDR" else header
        chunks += [body] if kind == b"IDAT" else []
        position += 12 + length
    width, height = int.from_bytes(header[:4], "big"), int.from_bytes(header[4:8], "big")
    channels = {2: 3, 6: 4}[header[9]]
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), np.uint8).reshape(height, 1 + width * channels)
    image, previous = np.zeros((height, width * channels), np.int32), np.zeros(width * channels, np.int32)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if kind == 2:
            line = (line + previous) % 256
        elif kind in (1, 3, 4):
            out = line.copy()
            for x in range(width * channels):  # left-dependent filters: one pixel at a time
                left = out[x - channels] if x >= channels else 0
                up, corner = previous[x], previous[x - channels] if x >= channels else 0
                if kind == 1:
                    predictor = left
                elif kind == 3:
                    predictor = (left + up) // 2
                else:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                out[x] = (line[x] + predictor) % 256
            line = out
        image[y], previous = line, line
    return image.reshape(height, width, channels)[:, :, :3]


@pytest.mark.skipif(not shutil.which("chromium"), reason="chromium is not installed (apt-get install chromium)")
def test_the_page_renders_its_table_and_code_in_chromium(batch, tmp_path):
    shot = batch["here"] / "review.png"
    done = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--screenshot={shot}", "--window-size=1280,1400",
                           f"file://{batch['here'] / 'review.html'}"],
                          capture_output=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    assert shot.is_file(), done.stderr.decode(errors="replace")[-2000:]
    pixels = _png_pixels(shot.read_bytes())
    header = np.all(pixels == (0x14, 0x53, 0x2D), axis=-1)  # the ranking table's head and the section rules
    code = np.all(pixels == (0x1E, 0x29, 0x3B), axis=-1)  # the code blocks' background
    assert header[:400].sum() > 2000, "no ranking table at the top of the page"
    assert code.sum() > 20000, "no code block on the first screen"
    light = np.all(pixels > 200, axis=-1)
    assert code[:, :700].sum() > code[:, 700:].sum()  # code on the left, the failing checks beside it
    assert light.mean() > 0.3  # a page, not a blank or a black screen

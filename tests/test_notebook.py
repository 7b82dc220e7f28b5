"""The `%%kata NN` cell magic: in a real Jupyter kernel (through nbclient) where the notebook extra is installed,
and its HTML rendering everywhere."""

import html
import json
import re

import pytest

from checker.engine import catalog
from checker.practice.notebook import Verdict, result_html
from checker.engine.runner import check
from conftest import ZOO


def test_weight_pictures_and_messages_are_html_tables_with_every_string_escaped():
    kata = catalog.find("03")
    result = check(kata, ZOO / "03" / "mask-after-softmax.py")
    page = result_html(result)
    assert "mask-after-softmax" in page and "<table" in page and "expected</caption>" in page
    pictures = [t for t in result.tests if t.picture is not None]
    assert pictures, "control: the terminal draws a weight picture for this file"
    assert page.count("<table") == 2 * sum(max(t.picture.got.shape) <= 8 for t in pictures)


def test_printed_text_and_messages_never_reach_the_page_raw(tmp_path):
    hostile = tmp_path / "02_softmax.py"
    hostile.write_text('print("<script>alert(1)</script>", flush=True)\n'
                       'def softmax(x, axis=-1):\n    raise ValueError("<img src=x onerror=alert(2)>")\n')
    result = check(catalog.find("02"), hostile)
    assert "<script>" in result.output and any("<img" in t.message for t in result.tests), "control"
    page = result_html(result)
    assert "<script>" not in page and "<img" not in page
    assert html.escape("<script>alert(1)</script>") in page


def test_a_usage_mistake_is_one_line_not_a_traceback():
    from checker.practice.notebook import _arguments

    with pytest.raises(ValueError, match="unknown kata '99'"):
        _arguments("99")
    with pytest.raises(ValueError, match="usage"):
        _arguments("")
    assert "usage" in Verdict(None, None, error="usage: %%kata NN")._repr_html_()


def _kernel_notebook(cells, folder):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(text) for text in cells]
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()
    return notebook


def _html(cell):
    return "".join(out.get("data", {}).get("text/html", "") for out in cell.outputs)


def test_the_magic_in_a_real_kernel_checks_in_the_sandbox_and_leaves_the_namespace_alone(tmp_path):
    (tmp_path / "katas").mkdir()  # the notebook's workspace: its progress and repro go there
    reference = (catalog.ROOT / "solutions" / "02_softmax.py").read_text()
    buggy = (ZOO / "02" / "no-max-shift.py").read_text()
    notebook = _kernel_notebook([
        "%load_ext checker\nbefore = sorted(globals())",
        "%%kata 02\n" + reference,
        "%%kata 02 --timeout 1\nimport os\nos.environ['KATA_RAN_HERE'] = '1'\nwhile True:\n    pass\n",
        "%%kata softmax\n" + buggy,
        "import os\nprint(sorted(n for n in set(globals()) - set(before) if n[0] != '_' and n not in ('before', 'os')),"
        " os.environ.get('KATA_RAN_HERE'))",
    ], tmp_path)
    passed, looped, named, after = notebook.cells[1:]  # the latest 02 cell fails: its repro is the one kept
    assert re.search(r">PASSED</b> kata 02 softmax: (\d+) of \1 checks", _html(passed))
    assert "no-max-shift" in _html(named) and ">FAILED</b>" in _html(named)
    assert "<summary>Repro, written to" in _html(named) and "kata.softmax(" in _html(named)
    assert (tmp_path / ".kata" / "notebook" / "repro" / "02_softmax.py").is_file()  # apart from kata check --repro
    assert json.loads((tmp_path / ".kata" / "progress.json").read_text())["cells"]["02"]["checks"] == 3  # its own
    assert ">TIMEOUT</b>" in _html(looped)
    # the kernel lived on, ran nothing of the cells, and gained no name from them
    # the kernel lived on, and ran nothing of the cells: no `softmax`, no `np`, no environment variable set
    assert after.outputs[0]["text"].strip() == "[] None"


FLOOD = 2**18  # zero-width spaces on the failing line: 768 KiB of UTF-8, within a file's 1 MB


def test_the_magic_takes_its_line_raw_and_bounds_what_a_cell_shows(tmp_path):
    """IPython runs `{expressions}` in a magic's line before the magic sees it, unless the magic is marked
    no_var_expand: the control is a plain cell magic in the same kernel, whose line does run. And a cell
    whose failing line is 256 Ki zero-width spaces shows a verdict within the stated bound, where every one of
    its 19 failing checks quoting the line whole would be 2 MiB of HTML each (a bigger flood costs the kernel
    seconds a MiB to take in, and proves nothing more: the bound is a constant)."""
    from checker.practice import notebook as magic

    (tmp_path / "katas").mkdir()
    reference = (catalog.ROOT / "solutions" / "02_softmax.py").read_text()
    wide = ('import numpy as np\ndef softmax(x, axis=-1):\n    raise ValueError("<b>"); s = "'
            + "\u200b" * FLOOD + '"\n')
    run = "__import__('os').environ.__setitem__('{}', '1')"
    notebook = _kernel_notebook([
        "%load_ext checker\nfrom IPython.core.magic import register_cell_magic\n"
        "@register_cell_magic\ndef plain(line, cell):\n    print(repr(line))",
        "%%plain {" + run.format("KATA_PLAIN_RAN") + "}\npass",  # the control: expansion runs the code
        "%%kata 02 {" + run.format("KATA_MAGIC_RAN") + "}\n" + reference,
        "%%kata 02\n" + wide,
        "%kata hint {" + run.format("KATA_LINE_RAN") + "}",  # the line magic takes its line raw too
        "import os\nprint(os.environ.get('KATA_PLAIN_RAN'), os.environ.get('KATA_MAGIC_RAN'), "
        "os.environ.get('KATA_LINE_RAN'))",
    ], tmp_path)
    control, raw, flooded, line, after = notebook.cells[1:]
    assert "usage: %kata hint NN" in _html(line)
    assert "None" in control.outputs[0]["text"]  # the plain magic saw the expression's value, not its text
    assert "usage: %%kata NN" in _html(raw)  # the line reached the magic as written: one word too many
    assert after.outputs[0]["text"].split() == ["1", "None", "None"]  # ran in the control only
    shown = _html(flooded)
    assert ">FAILED</b>" in shown and "more characters cut" in shown  # a raise on every input fails each check
    bound = magic.FAILURES * (magic.MESSAGE_CHARS + 3 * magic.CODE_CHARS) + magic.OUTPUT_CHARS
    assert len("&lt;U+200B&gt;") * FLOOD > 16 * bound, "control: one uncut quote of the line is far past the bound"
    assert len(shown) < bound  # escaped and badged, still within the constant
    text = "".join(out.get("data", {}).get("text/plain", "") for out in flooded.outputs)
    assert 0 < len(text) < bound


# --- a cell's progress is its own -------------------------------------------------------------------

def test_a_failing_cell_leaves_the_files_recorded_pass_in_place(workspace):
    from click.testing import CliRunner

    from checker.cli import cli
    from checker.practice import notebook, progress
    from conftest import CORRECT

    kata = catalog.find("07")
    (workspace / "katas" / kata.filename).write_text(next((CORRECT / "gqa").glob("*.py")).read_text())
    assert CliRunner().invoke(cli, ["check", "07"]).exit_code == 0
    before = progress.load(workspace).of("07")
    verdict = notebook.check_cell(kata, (ZOO / "07" / "kv-heads-tiled.py").read_text(), 10)
    assert verdict.result.status.value == "failed" and "kv-heads-tiled" in verdict.result.bugs  # control
    record = progress.load(workspace)
    assert record.of("07") == before and record.of("07").status == "passed"  # the file's pass, untouched
    cell = record.cells["07"]
    assert (cell.status, cell.bugs, cell.checks) == ("failed", verdict.result.bugs, 1)
    listed = CliRunner().invoke(cli, ["list"]).output.splitlines()
    assert "notebook cell" in listed[0]
    assert re.search(r"^07 +gqa .* passed .* failed \d\d:\d\d$", next(l for l in listed if l.startswith("07"))), listed
    assert not re.search(r"failed \d\d:\d\d$", next(l for l in listed if l.startswith("01")))
    assert json.loads(CliRunner().invoke(cli, ["list", "--json"]).output)[6]["cell"]["status"] == "failed"
    assert CliRunner().invoke(cli, ["next"]).output.startswith("Next: 01")  # kata next goes by the files
    # a passing cell that agrees with the file is no longer shown apart
    notebook.check_cell(kata, next((CORRECT / "gqa").glob("*.py")).read_text(), 10)
    assert "notebook cell" not in CliRunner().invoke(cli, ["list"]).output
    assert progress.load(workspace).cells["07"].checks == 2


@pytest.mark.parametrize("cells", [{"02": {"status": "failed"}}, {"02": {"status": "failed", "at": "noon", "bugs": [],
                                                                       "checks": 1}},
                                   {"02": {"status": 3, "at": 1.0, "bugs": [], "checks": 1}}, []])
def test_a_damaged_cell_record_warns_and_is_rebuilt(tmp_path, cells):
    from checker.practice import progress

    (tmp_path / ".kata").mkdir()
    (tmp_path / ".kata" / "progress.json").write_text(json.dumps({"format_version": 5, "katas": {}, "cells": cells}))
    record = progress.load(tmp_path)
    assert record.warning and record.cells == {}


def test_a_version_4_record_reads_with_no_cells_and_saves_as_5(tmp_path):
    from checker.practice import progress

    (tmp_path / ".kata").mkdir()
    (tmp_path / ".kata" / "progress.json").write_text(json.dumps({"format_version": 4, "katas": {
        "02": {"status": "passed", "attempts": 1, "seconds_to_pass": 3.0}}, "quiz": {}, "interview": None}))
    record = progress.load(tmp_path)
    assert record.warning is None and record.cells == {} and record.of("02").status == "passed"
    record.record_cell("02", "failed", ["no-max-shift", "no-max-shift"], now=100.0)
    record.save()
    again = progress.load(tmp_path)
    assert again.cells["02"] == progress.CellProgress("failed", 100.0, ["no-max-shift"], 1)
    assert again.of("02").status == "passed" and again.cell_differs("02") == again.cells["02"]
    assert json.loads(record.path.read_text())["format_version"] == 5


def test_the_line_verbs_say_their_usage_and_refuse_what_they_should(workspace):
    from checker.practice import notebook

    assert "Hint 1 of" in repr(notebook.verb("hint 02", workspace))
    assert "Hint 2 of" in repr(notebook.verb("hint 02", workspace))  # counted, as kata hint counts
    refused = repr(notebook.verb("solution 02", workspace))
    assert "has not passed yet" in refused and "%kata solution 02 --yes" in refused
    assert "def softmax" in repr(notebook.verb("solution 02 --yes", workspace))
    assert "No repro of kata 02 softmax: no cell" in repr(notebook.verb("repro 02", workspace))
    assert "NOT STARTED" in repr(notebook.verb("check 02", workspace))
    assert repr(notebook.verb("next", workspace)).startswith("Next: 01 scores")
    with pytest.raises(ValueError, match="unknown verb 'frobnicate'"):
        notebook.verb("frobnicate", workspace)
    with pytest.raises(ValueError, match="%%kata 02 on its first line"):
        notebook.verb("02", workspace)
    assert "%kata list | next | hint" in repr(notebook.verb("", workspace))


# --- the README's cells, the starter notebook, the front end ----------------------------------------

def _readme_cells():
    """The code blocks of the README's "In a Jupyter notebook" section, in order."""
    text = (catalog.ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### In a Jupyter notebook"):text.index("## What the checker promises")]
    return [block.strip("\n") for block in re.findall(r"```\n(.*?)```", section, re.S)]


def _plain(cell):
    return "".join(out.get("data", {}).get("text/plain", "") + out.get("text", "") for out in cell.outputs)


VERBS = {"list", "next", "hint", "solution", "repro", "check"}


def _points_only_to_commands_that_exist(text):
    """Every `%kata VERB` and `%%kata NN --option` the text points to is one the magic has."""
    verbs = set(re.findall(r"(?<!%)%kata (\w+)", text))
    options = set(re.findall(r"%%kata \d\d((?: --\w+)*)", text))
    return verbs <= VERBS and all(set(o.split()) <= {"--timeout", "--verbose"} for o in options), (verbs, options)


def test_every_readme_notebook_cell_does_what_its_text_says(tmp_path):
    cells = _readme_cells()
    assert [c.splitlines()[0] for c in cells] == ["%load_ext checker", "%%kata 02", "%%kata 01 --timeout 5",
                                                  "%kata hint 02", "%kata repro 02", "%kata list",
                                                  "%kata solution 02 --yes"]
    (tmp_path / "katas").mkdir()
    ran = _kernel_notebook(cells, tmp_path).cells
    loaded, softmax, scores, hinted, repro, listed, solution = ran
    assert not [out for out in loaded.outputs if out.get("output_type") == "error"]
    # "fails on purpose: ... names nan-on-all-masked with its fix"
    assert ">FAILED</b> kata 02" in _html(softmax) and "nan-on-all-masked" in _html(softmax)
    assert "Fix: shift an all -inf slice by 0" in _html(softmax)
    # "a kata 01 that passes"
    assert re.search(r">PASSED</b> kata 01 scores: (\d+) of \1 checks", _html(scores))
    assert "Hint 1 of" in _plain(hinted)
    assert "%run" in _plain(repro) and "kata.softmax(" in _plain(repro)
    assert "notebook cell" in _plain(listed) and re.search(r"02 +softmax .*failed \d\d:\d\d", _plain(listed))
    assert "def softmax" in _plain(solution)
    for cell in ran:
        assert not [out for out in cell.outputs if out.get("output_type") == "error"], cell.source
        assert _points_only_to_commands_that_exist(_plain(cell) + _html(cell))


def test_the_verdicts_text_points_only_to_commands_that_exist():
    from checker.practice.notebook_html import Verdict

    result = check(catalog.find("02"), ZOO / "02" / "no-max-shift.py")
    text = repr(Verdict(result, None, repro=("x/02_softmax.py", "")))
    assert "%%kata 02 --verbose" in text or "%kata repro 02" in text  # control: it does point somewhere
    assert "%%kata check" not in text and _points_only_to_commands_that_exist(text)


def test_kata_init_writes_a_starter_notebook_that_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    from click.testing import CliRunner

    from checker.cli import cli

    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(cli, ["init", "ws"])
    assert made.exit_code == 0 and "katas.ipynb" in made.output, made.output
    starter = nbformat.read(tmp_path / "ws" / "katas.ipynb", as_version=4)
    nbformat.validate(starter)
    code = [cell.source for cell in starter.cells if cell.cell_type == "code"]
    katas = catalog.all_katas()
    assert code[0] == "%load_ext checker" and len(code) == 1 + len(katas)
    for kata, source in zip(katas, code[1:]):
        assert source == f"%%kata {kata.id}\n" + (tmp_path / "ws" / "katas" / kata.filename).read_text()
    ran = _kernel_notebook([code[0], code[1], code[3]], tmp_path / "ws").cells
    assert "NOT-STARTED</b> kata 01" in _html(ran[1]) and "NOT-STARTED</b> kata 03" in _html(ran[2])


def test_the_notebook_extra_gives_a_jupyter_front_end():
    """The extra's front end is JupyterLab: `jupyter lab --version` runs where the extra is installed."""
    import importlib.util
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import tomllib

    extra = tomllib.loads((catalog.ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["notebook"]
    assert any(req.startswith("jupyterlab") for req in extra), extra
    if importlib.util.find_spec("jupyterlab") is None:
        pytest.skip("the notebook extra is not installed here (no jupyterlab)")
    jupyter = shutil.which("jupyter", path=str(Path(sys.executable).parent)) or shutil.which("jupyter")
    ran = subprocess.run([jupyter, "lab", "--version"], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and re.fullmatch(r"\d+\.\d+\.\d+\S*\n?", ran.stdout), ran.stdout + ran.stderr


def test_kata_list_in_a_notebook_carries_no_terminal_colour_codes(workspace, monkeypatch):
    """`%kata list` after a pass showed `<U+001B>[32mpassed   <U+001B>[0m` in a real kernel (walk of 14): the
    table's colours are the terminal's; the notebook gets the words."""
    import shutil
    from pathlib import Path

    from click.testing import CliRunner

    from checker.cli import cli
    from checker.practice import notebook_verbs

    kata = catalog.find("13")
    shutil.copy(Path(__file__).parent.parent / "solutions" / kata.filename, workspace / "katas" / kata.filename)
    assert CliRunner().invoke(cli, ["check", "13"]).exit_code == 0
    monkeypatch.delenv("NO_COLOR", raising=False)
    shown = notebook_verbs.listing(workspace, [])
    assert "\x1b" not in shown.text and "U+001B" not in repr(shown) and "U+001B" not in shown._repr_html_()
    assert re.search(r"^13 .* passed ", shown.text, re.M), shown.text


def test_kata_init_names_jupyter_lab_only_with_the_way_to_get_it(tmp_path, monkeypatch):
    """`kata init` said "in a notebook: jupyter lab katas.ipynb" where no JupyterLab is installed (walk of 13:
    the shared venv has no notebook extra, so the command suggested does not exist). Without it, the line says
    which extra brings it."""
    import importlib.util

    from click.testing import CliRunner

    from checker.cli import cli

    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(cli, ["init", "ws"])
    said = " ".join(made.output.split())
    assert made.exit_code == 0 and "jupyter lab katas.ipynb" in said, made.output
    installed = importlib.util.find_spec("jupyterlab") is not None
    assert ("pip install 'kata[notebook]'" in said) == (not installed), said

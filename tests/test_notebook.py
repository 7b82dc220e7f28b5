"""The `%%kata NN` cell magic: in a real Jupyter kernel (through nbclient) where the notebook extra is installed,
and its HTML rendering everywhere."""

import html
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
        "%%kata softmax\n" + buggy,
        "%%kata 02 --timeout 1\nimport os\nos.environ['KATA_RAN_HERE'] = '1'\nwhile True:\n    pass\n",
        "import os\nprint(sorted(n for n in set(globals()) - set(before) if n[0] != '_' and n not in ('before', 'os')),"
        " os.environ.get('KATA_RAN_HERE'))",
    ], tmp_path)
    passed, named, looped, after = notebook.cells[1:]
    assert re.search(r">PASSED</b> kata 02 softmax: (\d+) of \1 checks", _html(passed))
    assert "no-max-shift" in _html(named) and ">FAILED</b>" in _html(named)
    assert "<summary>Repro, written to" in _html(named) and "kata.softmax(" in _html(named)
    assert (tmp_path / ".kata" / "repro" / "02_softmax.py").is_file()
    assert '"02"' in (tmp_path / ".kata" / "progress.json").read_text()  # recorded as kata check records it
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
        "import os\nprint(os.environ.get('KATA_PLAIN_RAN'), os.environ.get('KATA_MAGIC_RAN'))",
    ], tmp_path)
    control, raw, flooded, after = notebook.cells[1:]
    assert "None" in control.outputs[0]["text"]  # the plain magic saw the expression's value, not its text
    assert "usage: %%kata NN" in _html(raw)  # the line reached the magic as written: one word too many
    assert after.outputs[0]["text"].split() == ["1", "None"]  # ran in the control only
    shown = _html(flooded)
    assert ">ERROR</b>" in shown and "more characters cut" in shown
    bound = magic.FAILURES * (magic.MESSAGE_CHARS + 3 * magic.CODE_CHARS) + magic.OUTPUT_CHARS
    assert len("&lt;U+200B&gt;") * FLOOD > 16 * bound, "control: one uncut quote of the line is far past the bound"
    assert len(shown) < bound  # escaped and badged, still within the constant
    text = "".join(out.get("data", {}).get("text/plain", "") for out in flooded.outputs)
    assert 0 < len(text) < bound

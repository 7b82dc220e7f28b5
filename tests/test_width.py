"""Output that fits the terminal (issue 24, point 1): rendered at 80 and 160 columns, every line's display
width is measured; prose is broken at spaces only; piped output (no width) is left as it was."""

import re

import pytest
from click.testing import CliRunner

from checker.engine import catalog, prompts
from checker.present import layout, render, render_progress
from checker.practice import progress
from checker.cli import cli
from conftest import ZOO, checked

WIDTHS = (80, 160)


@pytest.fixture
def width():
    yield layout.use
    layout.use(None)


def widest(text):
    return max(layout.display_width(line) for line in text.splitlines())


def words(text):
    return text.split()


def test_display_width_counts_wide_characters_twice_and_colour_codes_not_at_all():
    assert layout.display_width("注意力") == 6 and layout.display_width("\x1b[31mred\x1b[0m") == 3
    assert layout.display_width("é") == 1 and layout.display_width("e\u0301") == 1
    assert layout.wrap("注意力 " * 30, 40) and all(layout.display_width(line) <= 40
                                                  for line in layout.wrap("注意力 " * 30, 40))


def test_a_word_longer_than_the_line_stays_whole():
    line = "see " + "katas/" + "x" * 100 + ".py for more"
    assert "katas/" + "x" * 100 + ".py" in layout.wrap(line, 80)


FAILING = [("causal-mask", "mask-after-softmax.py"), ("multi-head", "reshape-without-transpose.py"), ("sampling", None)]


def a_failure(slug, name):
    kata = catalog.find(slug)
    path = ZOO / slug / name if name else sorted((ZOO / slug).glob("*.py"))[0]
    return kata, checked(kata, path)


@pytest.mark.parametrize("slug, name", FAILING)
@pytest.mark.parametrize("columns", WIDTHS)
def test_a_check_fits_the_terminal_and_keeps_every_word(width, slug, name, columns):
    kata, result = a_failure(slug, name)
    texts = prompts.for_kata(kata)
    width(None)
    piped = render.check_text(result, texts, verbose=True)
    width(columns)
    fitted = render.check_text(result, texts, verbose=True)
    assert widest(fitted) <= columns, fitted
    assert sorted(words(fitted)) == sorted(words(piped))  # broken at spaces: no word is cut (pictures may stack)


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_two_weight_pictures_stack_when_they_do_not_fit_side_by_side(width, columns):
    kata, result = a_failure("causal-mask", "mask-after-softmax.py")
    pictured = next(t for t in result.ranked_failures if t.picture is not None)
    width(columns)
    drawn = render.check_text(result, prompts.for_kata(kata))
    side_by_side = len(render.grid_lines(pictured.picture)[0]) + 4
    header = [line for line in drawn.splitlines() if "weights: yours" in line][0]
    assert ("expected" in header) == (side_by_side <= columns)
    assert widest(drawn) <= columns


@pytest.mark.parametrize("columns", WIDTHS)
def test_kata_list_sizes_its_columns_and_keeps_long_titles_in_their_column(width, tmp_path, columns):
    record = progress.load(tmp_path)
    rows = [(kata, prompts.for_kata(kata).title, record.of(kata.id)) for kata in catalog.all_katas()]
    width(columns)
    text = render_progress.list_text(rows)
    assert widest(text) <= columns, text
    status_column = text.splitlines()[0].index("status")
    for line in text.splitlines()[1:]:  # each row's status starts in the header's column; wrapped titles too
        assert line[status_column:].startswith("unchecked") or not line[status_column:].strip()
    width(None)
    assert sorted(words(render_progress.list_text(rows))) == sorted(words(text))


def test_piped_output_is_not_wrapped(workspace):
    result = CliRunner().invoke(cli, ["list"])
    assert len(max(result.output.splitlines(), key=len)) > 80  # the longest title stays on its row
    assert '"title"' in CliRunner().invoke(cli, ["list", "--json"]).output


# --- issue 36 point 4 and issue 37 point 5: an explicit COLUMNS when piped; tables and reports at 80 ----------

def _run_piped(workspace, *args):
    """`kata ARGS | cat` in a real process, with COLUMNS=80: stdout is a pipe, not a terminal."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "checker", *args], cwd=workspace, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, timeout=120).stdout


def test_an_explicit_columns_is_the_width_when_piped(workspace):
    import shutil

    listed = _run_piped(workspace, "list")
    assert listed.strip() and widest(listed) <= 80, listed
    shutil.copy(ZOO / "causal-mask" / "mask-after-softmax.py", workspace / "katas" / catalog.find("03").filename)
    checked_03 = _run_piped(workspace, "check", "03")
    assert "mask-after-softmax" in checked_03 and widest(checked_03) <= 80, checked_03


def test_a_messages_table_keeps_its_rows_at_80_columns(width):
    """Kata 09's top-p table and kata 12's two hypotheses: cells never broken, rows never run together."""
    for slug, name, cells in (("sampling", "filter-before-temperature.py", ["0.186123", "0.744491", "0.930613"]),
                              ("beam-search", "beam-drops-finished.py", ["yours", "[2, 0, 3, 2, 0]", "5 new tokens"])):
        kata, result = a_failure(slug, name)
        width(None)
        piped = render.check_text(result, prompts.for_kata(kata))
        width(80)
        fitted = render.check_text(result, prompts.for_kata(kata))
        assert widest(fitted) <= 80, fitted
        row = next(line for line in fitted.splitlines() if all(cell in line for cell in cells[:1]) and cells[1] in line)
        assert all(cell in row for cell in cells), (row, fitted)
        assert sorted(words(piped)) == sorted(words(fitted))
        for formula in re.findall(r"sum / \d+ \*\* \d", piped):  # kata 12's score formula stays on one line
            assert formula in fitted, (formula, fitted)


def test_bench_the_mock_report_and_a_solution_break_at_words_at_80_columns(width):
    from checker.cli.learn import solution_text
    from checker.practice.bench import BenchResult, BenchRow
    from checker.practice.mock import MockReport, QuizAnswer, QuizScore
    from checker.present import reports

    bench = BenchResult("05", "kv-cache", "katas/05_kv_cache.py", 1, 64, 4, 5,
                        [BenchRow(128, 3.6e-5, 3.4e-5, 1.2e-3, 0.78), BenchRow(2048, 3.1e-4, 3.2e-4, 0.57, 0.4)], True, 3)
    question = prompts.for_kata(catalog.find("gqa")).questions[0].prompt
    mock = MockReport("07", "gqa", 123456, 30, "2026-12-04T19:00:00+00:00", "2026-12-04T19:20:00+00:00", "passed",
                      600.0, 3, ["causal-ignored"], 1, QuizScore(1, 1, [QuizAnswer("q", question * 2, "4", "4", True)]))
    source = catalog.find("kv-cache").solution_path.read_text()
    width(None)
    piped = [reports.bench_text(bench), reports.fitted_markdown(reports.mock_markdown(mock)), solution_text(source)]
    assert piped[2] == source  # no width: the file as written, to copy
    width(80)
    fitted = [reports.bench_text(bench), reports.fitted_markdown(reports.mock_markdown(mock)), solution_text(source)]
    for before, after in zip(piped, fitted):
        assert widest(after) <= 80, after
        assert [w for w in words(after) if w != "#"] == [w for w in words(before) if w != "#"] or \
            sorted(w for w in words(after) if w != "#") == sorted(w for w in words(before) if w != "#")
    assert "`kata mock --kata 07 --seed 123456` asks the same questions." in fitted[1]


def test_a_picture_of_a_chunk_after_a_prefill_labels_its_rows_by_position(width):
    """Kata 13's new_tokens_see_themselves draws the rows of positions 4-7 under a title saying so; the rows
    read q0-q3 beside columns k0-k7 (walk of 13), so the row of position 4 looked like position 0's."""
    kata, result = a_failure("sliding-window", "window-off-by-one.py")
    test = next(t for t in result.tests if t.name == "new_tokens_see_themselves")
    first = test.picture.first_row
    assert first > 0 and f"rows: positions {first}-" in test.picture.title
    width(80)
    rows = [line.split()[0] for line in render.grid_lines(test.picture, 80) if line.strip().startswith("q")]
    count = len(test.picture.got)
    assert rows == [f"q{first + i}" for i in range(count)] * 2  # yours, then expected (stacked at 80)


def test_a_shown_array_has_no_padding_inside_its_brackets_for_a_wrap_to_break(width):
    """Kata 14's residual message showed `[0.124, 0. , 0. , 0.2 , 0.368]` (NumPy's padding), and at 80 columns
    the wrap broke `[..., 0.685, 0.\\n  ]]` inside the array (walk of 14). Shown arrays are unpadded."""
    import numpy as np

    from checker.engine import testkit

    assert testkit.show(np.array([0.124, 0.0, 0.0, 0.2, 0.368])) == "[0.124, 0, 0, 0.2, 0.368]"
    assert testkit.show(np.array([[0.0, -0.0], [np.nan, 0.37]])) == "[[0, 0], [nan, 0.37]]"
    kata, result = a_failure("speculative", "spec-residual-unnormalized.py")
    width(80)
    text = render.check_text(result, prompts.for_kata(kata), verbose=True)
    assert "returned [" in text and not re.search(r"\d\.? +[\],]|\d\.?\n +\]", text), text


def test_kata_14_counts_one_token_as_one():
    """`got 1 tokens, expected 2` and `all 1 kept and no bonus after them` (walk of 14): the nouns agree."""
    kata, result = a_failure("speculative", "spec-no-bonus.py")
    text = " ".join(render.check_text(result, prompts.for_kata(kata), verbose=True).split())
    assert "got 1 token," in text and "the 1 drafted kept" in text
    assert not re.search(r"\b1 tokens\b|\ball 1 kept\b", text), text


def test_a_shape_is_never_broken_inside_nor_from_its_name():
    """`w_k (8, 8)` and `(n_q, n_k)` stay whole at every width from 40 to 80 (the walk saw `w_k (8,` / `8)` and
    `(n_q,` / `n_k)`)."""
    from checker.present import layout

    line = ("✗ mha_weights_pictured: multi_head_attention(x (1, 4, 8), w_q (8, 8), w_k (8, 8), w_v (8, 8), "
            "w_o (8, 8), n_heads=2) returned a table of (n_q, n_k) where (b, h, n, d_head) was expected")
    for width in range(40, 81):
        lines = layout.wrap(line, width, "  ")
        assert all(layout.display_width(text) <= width for text in lines), width
        joined = "\n".join(lines)
        for shape in ("x (1, 4, 8)", "w_k (8, 8)", "w_o (8, 8)", "(n_q, n_k)", "(b, h, n, d_head)"):
            assert shape in joined, (width, joined)
    # The control: without the rule, some width breaks a shape inside or from its name.
    import re

    kept, layout._SHAPE = layout._SHAPE, re.compile("(?!)")
    try:
        broken = ["\n".join(layout.wrap(line, width, "  ")) for width in range(40, 81)]
    finally:
        layout._SHAPE = kept
    assert any("w_k (8, 8)" not in joined or "(n_q, n_k)" not in joined for joined in broken)

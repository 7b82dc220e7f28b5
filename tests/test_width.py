"""Output that fits the terminal (issue 24, point 1): rendered at 80 and 160 columns, every line's display
width is measured; prose is broken at spaces only; piped output (no width) is left as it was."""

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

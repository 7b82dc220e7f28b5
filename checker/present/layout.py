"""Fitting text to the terminal: its width, the display width of a string, prose wrapped at words.

Piped output (a file, `less`, a test) has no width: nothing is wrapped, so scripts read the same lines at
any size, unless the user set `COLUMNS` (the width asked for, as GNU tools and `shutil.get_terminal_size` read it).
`--json` is never wrapped. Widths count what the terminal shows: colour codes count 0, East Asian
wide characters 2 and combining marks 0.
"""

import os
import re
import shutil
import sys
import unicodedata

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
NARROWEST = 40  # below this, wrapping would only make things worse: lines are left as they are


def terminal_width(stream=None):
    """The width to fit: an explicit `COLUMNS`, else the columns of the terminal that `stream` (stdout) writes
    to, or None when it is not a terminal."""
    asked = os.environ.get("COLUMNS", "").strip()
    if asked.isdigit() and int(asked) > 0:
        return int(asked)
    stream = stream or sys.stdout
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return shutil.get_terminal_size().columns


def counted(count, noun):
    """`1 question`, `3 questions`: the noun agrees with the number."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def display_width(text):
    """How many columns `text` takes on a terminal."""
    width = 0
    for char in _ANSI.sub("", text):
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def pad(text, width):
    """`text` padded with spaces to `width` display columns (colour codes and wide characters allowed)."""
    return text + " " * max(0, width - display_width(text))


# A shape, with the name before it (`w_k (8, 8)`, `(n_q, n_k)`): one word, never broken inside
_SHAPE = re.compile(r"(?:\b[A-Za-z_]\w{0,11} )?\(\w{1,8}(?:, \w{1,8}){1,5}\)")


def wrap(line, width, hang=None, narrowest=NARROWEST):
    """One line as the lines that fit `width`, broken at spaces only (a word wider than the line stays
    whole). Continuation lines start with `hang` (default: the line's own indentation)."""
    if width is None or width < narrowest or display_width(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip(" "))]
    hang = indent if hang is None else hang
    lines, current = [], indent
    for word in _SHAPE.sub(lambda shape: shape.group(0).replace(" ", "\0"), line[len(indent):]).split(" "):
        word = word.replace("\0", " ")
        if not word:
            continue
        start = current.strip() == ""
        candidate = current + word if start else f"{current} {word}"
        if display_width(candidate) <= width or start:
            current = candidate
        else:
            lines.append(current)
            current = hang + word
    lines.append(current)
    return lines


def hang_of(line):
    """The continuation indent of a line: past a leading mark (`✗ `, `-> `, `- `, `Hint 1: `) so the
    wrapped text lines up under the text, else its own indentation."""
    stripped = _ANSI.sub("", line)
    found = re.match(r"^(\s*)(?:[✗!·⏱✓*-]|->|\d+\.|[a-z]\))\s+", stripped)
    return " " * display_width(found.group(0)) if found else None


def reflow(lines, width, indent=""):
    """Hard-broken prose (a brief written at 100 columns) as one paragraph wrapped to `width`, each line
    starting with `indent`; as it is (with the indent) when it fits or there is no width."""
    if width is None or all(display_width(indent + line) <= width for line in lines):
        return [indent + line for line in lines]
    return wrap(indent + " ".join(line.strip() for line in lines), width)


class Kept(str):
    """A line drawn to fit already (a table, a picture): `wrap_all` leaves it as it is."""


class Row(str):
    """A row of a table a message lays out (kata 09's top-p table, kata 12's hypotheses): its cells, apart
    by two spaces or more, are never broken; a row too wide goes on at a gap, under its first cell."""


def wrap_row(line, width):
    """A table row as the lines that fit `width`, broken only between cells (a cell wider than a line is
    wrapped as prose)."""
    if width is None or width < NARROWEST or display_width(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip(" "))]
    hang = indent + "  "
    pieces = re.split(r"(\s{2,})", line[len(indent):])  # cell, gap, cell, ...
    lines, current = [], indent + pieces[0]
    for gap, cell in zip(pieces[1::2], pieces[2::2]):
        if display_width(current + gap + cell) <= width:
            current += gap + cell
        else:
            lines.append(current)
            current = hang + cell
    lines.append(current)
    return [piece for line in lines for piece in wrap(line, width, hang)]


_CURRENT = [None]


def use(width):
    """Set the width the renderers fit to (None: do not wrap); the CLI sets the terminal's."""
    _CURRENT[0] = width


def current():
    return _CURRENT[0]


def fit(lines):
    """`lines` wrapped at words to the current width (Kept lines and a width of None: as they are)."""
    width = current()
    if width is None:
        return list(lines)
    fitted = []
    for line in lines:
        fitted += ([line] if isinstance(line, Kept) else wrap_row(line, width) if isinstance(line, Row)
                   else wrap(line, width, hang_of(line)))
    return fitted

"""What in a candidate's file a human should look at: reaching beyond what an attention kata needs, or
code the review page could not show as Python reads it.

Read by the trusted parent from the source (`ast`), never by running it: a flag for review, not a
failure. An attention kata needs NumPy, math and a few numeric or typing modules; files, processes,
the network, introspection and dynamic code are what an attempt to read the answers would use.
Bidirectional-text controls and other invisible characters (Trojan Source: an early `return` that reads
as a docstring) and code pushed past the width a reviewer sees are noted too. A file too deep to parse
is noted, never a crash. The file is read as Python decodes it (a PEP 263 coding cookie other than
UTF-8 is a note of its own), code below the page's PAGE_LINES cut is a note, and what the code reaches
(through attributes, built names, frames, C, decoded code) is review_reach.py's scan.
"""

import ast
import codecs
import io
import re
import tokenize

from checker.present import escape
from checker.hiring import review_reach
from checker.hiring.review_reach import ATTRIBUTES, CALLS, NUMERIC, NUMPY_IO  # noqa: F401 - their old home

WIDTH = 120  # columns a reviewer sees of a line (tabs at 8); code beyond them is noted
LINES = re.compile(r"\r\n|\r|\n")  # where Python's tokenizer ends a line (str.splitlines ends more)
SCAN_BYTES = 256 * 1024  # of a file the scan parses (a kata's answer is a few kB); a larger file is a note
PAGE_LINES = 400  # lines of a file the review page shows; code below them is a note (review_code.py)


def reasons(source):
    """Why a human should look at this file: ["imports os", "calls open()", ...], [] for a plain kata."""
    text, encoding = decode(source)
    found = [] if encoding in ("utf-8", None) else [
        f"a coding cookie: Python reads this file as {encoding}, not UTF-8 (the page shows it as Python decodes "
        "it; an editor or a diff shows other text)"]
    found += hidden_code(text)
    if len(source) > SCAN_BYTES:  # a kata's answer is a few kB: the parent's time is not the candidate's to set
        lines = len(LINES.split(text))
        cut = f"; {lines - PAGE_LINES:,} lines below the page's {PAGE_LINES}-line cut" if lines > PAGE_LINES else ""
        return found + [f"scan stopped: the file is {len(source) // 1024:,} KB, past the scan's "
                        f"{SCAN_BYTES // 1024} KB{cut}: read it in full"]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return found  # it fails to load anyway
    except (RecursionError, MemoryError) as error:  # nested too deep for the parser: a person reads it
        return found + [f"too deeply nested for the review scan ({type(error).__name__}): read it in full"]
    return found + below_cut(tree) + review_reach.reasons(tree)


def decode(source):
    """(the file's text as Python decodes it: its PEP 263 coding cookie or BOM, else UTF-8; the codec's
    name, None when Python could not decode it: the text then as UTF-8 with replacements)."""
    if isinstance(source, str):
        return source, "utf-8"
    source = bytes(source)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        text = source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return source.decode("utf-8", errors="replace"), None
    name = codecs.lookup(encoding).name
    return text, "utf-8" if name in ("utf-8", "utf-8-sig") else name


def below_cut(tree, cut=PAGE_LINES):
    """A note on the code the page's cut hides: statements that start (or go on) below line `cut`."""
    nodes = review_reach.walk(tree, review_reach.NODES)
    hidden = [node for node in nodes if isinstance(node, ast.stmt)
              and (node.end_lineno or node.lineno) > cut]
    if not hidden:
        return []
    first = min(hidden, key=lambda node: node.lineno)
    named = [f"{type(node).__name__.lower().replace('functiondef', 'def')} {node.name} (line {node.lineno})"
             for node in hidden if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    least = "at least " if nodes.stopped else ""
    return [f"code below the page's {cut}-line cut: {least}{len(hidden)} statement{'s' if len(hidden) > 1 else ''} from "
            f"line {max(first.lineno, cut + 1)}{': ' + _few(named, 3) if named else ''} (read the file itself)"]


BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")  # reorder text


def hidden_code(text):
    """Notes on what the page cannot show as Python reads it: bidirectional-text controls, other invisible
    characters (each kind one note, with a count: never a note a character), and code beyond the visible
    width."""
    found, wide = [], []
    kinds = {True: ({}, [0]), False: ({}, [0])}  # bidi or not: ({name: [line numbers]}, [how many])
    for number, line in enumerate(LINES.split(text.removeprefix("\ufeff")), start=1):
        for char in escape.hidden_characters(line):
            lines, count = kinds[char in BIDI]
            lines.setdefault(escape.name(char), []).append(number)
            count[0] += line.count(char)
        width = len(line.rstrip().expandtabs(8))
        if width > WIDTH:
            wide.append((number, width))
    for bidi, why in ((True, "bidirectional-text controls: the code may not read as it runs"),
                      (False, "invisible characters: the code may not read as it runs")):
        hidden, (count,) = kinds[bidi]
        if hidden:
            lines = sorted({number for numbers in hidden.values() for number in numbers})
            found.append(f"{count:,} hidden character{'s' if count > 1 else ''} {_few(list(hidden), 8)} ({why}) "
                         f"on line{'s' if len(lines) > 1 else ''} {_few(lines)}")
    if wide:
        found.append(f"code beyond column {WIDTH} (off-screen on the page) on line{'s' if len(wide) > 1 else ''} "
                     + _few([f"{number} ({width} columns)" for number, width in wide]))
    return found


def _few(items, most=5):
    return ", ".join(map(str, items[:most])) + (f" and {len(items) - most} more" if len(items) > most else "")

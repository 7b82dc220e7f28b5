"""Candidate-derived text made safe for the channel it reaches: one function a channel, used by every renderer.

A file or folder name, a link target, printed output, an exception message or a line of code comes from
candidate code, so it is hostile: raw, it could clear a terminal and draw a fake ranking (ESC sequences),
add a "## Reviewer sign-off" section, a tracking image or an HTML comment to a Markdown report (newlines and
markup), run a formula in a spreadsheet (a CSV cell starting with =), or make a line of code read as
something else (bidirectional-text controls, Trojan Source). Data stays raw; each renderer escapes at the
point where the text meets its channel:

- `terminal`: no control character but tab (and newline only where the layout puts it: `lines`);
- `markdown`: no markup (every character that could start some backslash-escaped, no line break);
- `csv_cell`: never starts with =, +, -, @, a tab or a carriage return (OWASP's rule), nor their look-alikes,
  and shows hidden characters;
- `html`: escaped, with invisible characters shown (marked, in text).

Everywhere, a character that is invisible or moves the text (controls, bidi and other format characters,
line and paragraph separators) is shown as `<U+202E>`: a reviewer sees it is there.
"""

import re

from checker.sandbox.chars import HIDDEN, hidden, name, visible  # noqa: F401 - the one rule, at the bottom floor
# what can start inline markup mid-line: emphasis, code, links and images, HTML and comments, entities,
# tables, strike-through, math, GFM's bare links (http://, www., an address with @); an underscore inside a
# word cannot, and stays as it is
_MARKDOWN = re.compile(r"([\\`*\[\]()<>!|~&$#@]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|:(?=//)|(?<=www)\.)")
_FORMULA = tuple("=+-@\t\r") + ("\u2212", "\uff1d", "\uff0b", "\uff0d", "\uff20")  # and minus, full-width forms


def hidden_characters(text):
    """The distinct hidden characters of `text`, in order of appearance (newline and tab are not hidden)."""
    text = str(text)
    if text.isprintable():  # the common case, at C speed: no control, format or separator character
        return []
    return list(dict.fromkeys(char for char in text if hidden(char)))


def cut(text, most):
    """`text` (a str) kept to its first `most` characters, saying how many were cut: a renderer's cost is
    bounded by `most`, never by the candidate's bytes."""
    text = str(text)
    if len(text) <= most:
        return text
    return f"{text[:most]} … ({len(text) - most:,} more characters cut)"


def terminal(text):
    """One piece of a terminal line: no control character but tab, no newline (the layout places those)."""
    return visible(text)


def lines(text):
    """Text the layout shows line by line (printed output): its lines, each safe for the terminal."""
    return [terminal(line) for line in str(text).replace("\r\n", "\n").split("\n")]


def markdown(text):
    """Inline Markdown (a table cell, a list item) that renders as the text itself: no heading, link, image,
    HTML, comment, emphasis or line break can come from it."""
    return _MARKDOWN.sub(r"\\\1", visible(text))


def csv_cell(text):
    """A CSV cell a spreadsheet shows as text: one that could start a formula gets a leading apostrophe, and
    a hidden character is shown (a line break stays: the CSV quotes it)."""
    text = visible(text, newlines=True)
    return "'" + text if text.lstrip(" ").startswith(_FORMULA) else text


def html(text, attribute=False):
    """HTML text (hidden characters shown as <U+202E> in a <mark>, a run of one of them as one mark with
    its count: <U+200B>×330,000) or, with `attribute`, an attribute's quoted value (shown as <U+202E>):
    escaped either way."""
    import html as _html  # the page's alone: `kata check` starts without it

    if attribute:
        return _html.escape(visible(text, newlines=True), quote=True)
    escaped = _html.escape(str(text), quote=True)
    if escaped.isprintable():
        return escaped
    import itertools

    parts = []
    for char, run in itertools.groupby(escaped):
        count = sum(1 for _ in run)
        if hidden(char):
            parts.append(f'<mark class="hidden">{_html.escape(name(char))}{f"×{count:,}" if count > 1 else ""}</mark>')
        else:
            parts.append(char * count)
    return "".join(parts)

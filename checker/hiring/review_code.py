"""The review page's view of one kata: what the candidate wrote, and what its checks said.

The code is shown against the stub the pack issued (pack.issued_stub, checked against the roster's
SHA-256): the lines the candidate wrote or changed are marked, the stub's lines they removed are shown
struck through, and a run of the stub's lines left as they were (its long docstring) is folded into a
<details> a reviewer can open. Every line wraps (no sideways scrolling on a phone, nothing clipped in
print); a line past review.WIDTH columns is outlined, and every run of a hidden character is shown as one
badge with its count. The file is shown as Python decodes it (review.decode: a coding cookie is said).
What the page draws of a file is bounded whatever its bytes: review.PAGE_LINES lines, LINE_CHARS
characters of a line, CODE_BYTES of HTML; each cut says what it hid (and code below the line cut is a
review note), and a check's message is cut to MESSAGE_CHARS.
The failing checks follow, the same error from many checks folded into one box with a count, with the
weight pictures of katas 03/04 drawn as tables. Every text is escaped (checker/present/escape.py).
"""

import difflib
import hashlib
import math

from checker.engine import catalog
from checker.present import escape
from checker.hiring import review

CODE_LINES = review.PAGE_LINES  # a longer file is cut, with a note: the reviewer has the file itself
LINE_CHARS = 1_000  # characters of a line drawn (a run of one hidden character is one badge)
CODE_BYTES = 256 * 1024  # HTML a file's code may take on the page; the lines past it are counted, not drawn
MESSAGE_CHARS = 2_000  # of a failing check's message
CONTEXT = 2  # unchanged lines shown around a change before the rest of a run is folded
MIN_FOLD = 4  # a shorter run is shown: folding it would save nothing
PICTURE_MAX = 12  # larger weight grids are described, not drawn


def _e(text):
    return escape.html(text)


def _a(text):
    return escape.html(text, attribute=True)


def issued(candidate, kata):
    """(the stub's text, what it is) the file is compared with, or (None, why not)."""
    from checker.hiring import pack

    record = candidate.record or {}
    katas = tuple(catalog.find(k.kata) for k in candidate.katas)
    try:
        stub = pack.issued_stub(catalog.find(kata.kata), candidate.seed, katas)
    except Exception as error:  # noqa: BLE001 - the view goes on without a stub
        return None, f"the stub could not be made again ({type(error).__name__})"
    digest = (record.get("stubs") or {}).get(f"katas/{catalog.find(kata.kata).filename}")
    if digest and hashlib.sha256(stub.encode("utf-8")).hexdigest() != digest:
        return None, "the stub this version packs is not the one the roster issued (another kata version?)"
    return stub, "the issued stub" if digest else "the stub this version packs for its seed (no roster record)"


def code(candidate, kata):
    """The kata's file against the issued stub, as HTML."""
    source = candidate.files.get(kata.kata)
    if source is None:
        return '<div class="code"><div class="l">(not graded: the file was refused or missing)</div></div>'
    text, encoding = review.decode(source)
    everything = _lines(text)
    lines = _drawn(everything)
    cookie = "" if encoding == "utf-8" else (
        f'<p class="flag">Shown as Python decodes it: {_e(encoding or "not decodable (shown as UTF-8)")}, '
        "not UTF-8 (the file's coding cookie); an editor shows other text.</p>")
    more = _more(kata, len(everything), len(lines))
    stub, what = issued(candidate, kata)
    if stub is None:
        return cookie + f'<p class="muted">Whole file ({_e(what)}).</p>' + _block(
            [_line(number, line) for number, line in enumerate(lines, start=1)] + [more])
    stub_lines = _lines(stub)
    matcher = difflib.SequenceMatcher(None, stub_lines, lines, autojunk=False)
    written = sum(j2 - j1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("replace", "insert"))
    parts = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts += _unchanged(lines, j1, j2, first=j1 == 0, last=j2 == len(lines))
            continue
        parts += _removed(stub_lines[i1:i2])
        parts += [_line(number + 1, lines[number], "add") for number in range(j1, j2)]
    summary = (f'<p class="muted">Against {_e(what)}: {written} line{"s" if written != 1 else ""} written or '
               "changed (marked), the stub's removed lines struck through, its unchanged lines folded.</p>")
    return cookie + summary + _block(parts + [more])


def _drawn(lines):
    """The lines the page draws: the first CODE_LINES, each cut to LINE_CHARS, until CODE_BYTES of HTML."""
    drawn, size = [], 0
    for line in lines[:CODE_LINES]:
        if len(line) > LINE_CHARS:
            line = f"{line[:LINE_CHARS]} … [{len(line) - LINE_CHARS:,} more characters of this line not shown]"
        size += len(_text(line)) + 80  # the line's own markup
        if size > CODE_BYTES:
            break
        drawn.append(line)
    return drawn


def _more(kata, total, drawn):
    """What the cut hid, said: how many lines, why, and (the review note) the code among them."""
    if drawn == total:
        return ""
    why = (f"the page draws {CODE_LINES} lines of a file" if drawn == min(total, CODE_LINES)
           else f"the page draws {CODE_BYTES // 1024} KB of a file's code")
    code = next((reason for reason in kata.review if reason.startswith("code below the page's")), "")
    return (f'<div class="l flag">… lines {drawn + 1}-{total} not shown ({why}; the reviewer has the file)'
            f'{": " + _e(code) if code else ""}</div>')


def _lines(text):
    lines = review.LINES.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _unchanged(lines, start, end, first, last):
    """The unchanged run lines[start:end]: CONTEXT lines next to each change shown, the rest folded."""
    keep_before = 0 if first else CONTEXT
    keep_after = 0 if last else CONTEXT
    if end - start < keep_before + keep_after + MIN_FOLD:
        return [_line(n + 1, lines[n]) for n in range(start, end)]
    fold_from, fold_to = start + keep_before, end - keep_after
    shown = [_line(n + 1, lines[n]) for n in range(start, fold_from)]
    hidden = "".join(_line(n + 1, lines[n]) for n in range(fold_from, fold_to))
    shown.append(f'<details class="fold"><summary>{fold_to - fold_from} unchanged lines of the stub '
                 f"({fold_from + 1}-{fold_to})</summary>{hidden}</details>")
    return shown + [_line(n + 1, lines[n]) for n in range(fold_to, end)]


def _removed(lines):
    """The stub's lines the candidate removed, struck through; a long run of them (a docstring) folded."""
    struck = [f'<div class="l del"><span class="ln">−</span>{_text(line)}</div>' for line in lines]
    if len(lines) <= 2 * CONTEXT + 1:
        return struck
    return [f'<details class="fold"><summary>{len(lines)} lines of the stub removed</summary>{"".join(struck)}'
            "</details>"]


def _block(parts):
    return f'<div class="code">{"".join(parts)}</div>'


def _text(line):
    return _e(line) or " "


def _line(number, line, kind=""):
    width = len(line.rstrip().expandtabs(8))
    classes = " ".join(filter(None, ("l", kind, "wide" if width > review.WIDTH else "")))
    badge = (f'<mark class="hidden">{width} columns: wrapped, code past column {review.WIDTH}</mark> '
             if width > review.WIDTH else "")
    return f'<div class="{classes}"><span class="ln">{number}</span>{badge}{_text(line)}</div>'


# --- the checks -----------------------------------------------------------------------------------------

def _error_text(test):
    """What a failing check said once the call it made is set aside (what many checks share)."""
    message = test.get("message") or ""
    for verb in (" raised ", " still raises "):
        if verb in message:
            return verb.strip() + " " + message.split(verb, 1)[1]
    return message


def checks(kata):
    tests = kata.check.get("tests", [])
    failing = [test for test in tests if test["outcome"] != "passed"]
    pictures = {}
    for picture in kata.check.get("pictures") or []:
        pictures.setdefault(picture["test"], []).append(picture)
    if not failing:
        return f'<div class="check ok">Every check passed ({kata.passed} of {kata.total}).</div>'
    never = kata.total - len(tests)
    parts = [f"<p><b>{len(failing)} failing check{'s' if len(failing) > 1 else ''}</b>"
             f"{f' ({never} never ran)' if never > 0 else ''}</p>"]
    groups = {}
    for test in failing:
        groups.setdefault((test["outcome"], test.get("bug"), _error_text(test)), []).append(test)
    for (outcome, bug, shared), group in groups.items():
        first = group[0]
        named = f' <span class="bug">→ {_e(bug)}</span>' if bug else ""
        if len(group) == 1:
            grids = "".join(_grid(picture) for picture in pictures.get(first["name"], []))
            parts.append(f'<div class="check"><b>{_e(first["name"])}</b> <span class="status-{_a(outcome)}">'
                         f'{_e(outcome)}</span>{named}<br>{_message(first)}{grids}</div>')
        else:
            names = ", ".join(test["name"] for test in group)
            parts.append(f'<div class="check folded"><b>{len(group)} checks</b> <span class="status-{_a(outcome)}">'
                         f'{_e(outcome)}</span>{named}: {_e(escape.cut(shared, MESSAGE_CHARS))}<br><span class="muted">{_e(names)}; the '
                         f'first: {_message(first)}</span></div>')
    return "".join(parts)


def _message(test):
    return _e(escape.cut(test.get("message") or "", MESSAGE_CHARS))


def _grid(picture):
    got, want, allowed = picture["got"], picture["want"], picture.get("allowed")
    rows, cols = len(got), len(got[0]) if got else 0
    if not rows or rows > PICTURE_MAX or cols > PICTURE_MAX:
        return f'<p class="muted">{_e(picture["title"])}: {rows}×{cols}, too large to draw</p>'

    def table(values, label, compare):
        head = "<tr><th></th>" + "".join(f"<th>k{j}</th>" for j in range(cols)) + "<th>sum</th></tr>"
        body = []
        for i in range(rows):
            cells = []
            for j in range(cols):
                value, may = values[i][j], True if allowed is None else allowed[i][j]
                differs = compare and not _close(value, want[i][j])
                classes = " ".join(name for name, on in (("differs", differs), ("blocked", not may)) if on)
                text = "·" if not may and value == 0 else _number(value)
                shade = "" if not may or not _finite(value) else \
                    f' style="background:rgba(37,99,235,{min(max(value, 0.0), 1.0) * 0.55:.2f})"'
                cells.append(f'<td class="{classes}"{shade}>{_e(text)}</td>')
            body.append(f"<tr><th>q{i}</th>{''.join(cells)}<td>{_e(_number(sum(values[i])))}</td></tr>")
        return f'<table class="grid"><caption>{_e(label)}</caption>{head}{"".join(body)}</table>'

    return (f'<div class="grids">{table(got, picture["title"] + ": yours", True)}'
            f'{table(want, "expected", False)}</div>')


def _finite(value):
    return isinstance(value, (int, float)) and math.isfinite(value)


def _close(a, b):
    if not (_finite(a) and _finite(b)):
        return repr(a) == repr(b)
    return abs(a - b) <= 1e-3 + 1e-3 * abs(b)


def _number(value):
    return f"{value:.2f}" if _finite(value) else str(value)

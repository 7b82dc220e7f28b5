"""`kata grade --html`: the review page, one self-contained HTML file a reviewer opens in a browser.

The ranking table, the similar pairs, then each candidate: the summary, the flags (integrity, time,
similarity), and each kata's code beside its failing checks, their messages and the weight pictures
of katas 03/04 drawn as tables. No script, no server, no network, no external asset; a Content
Security Policy forbids them all, and every text that reaches the page (candidate code, paths, messages)
is escaped: candidate code is hostile. Like exports.py, this formats and decides nothing.
"""

import math

from checker import escape
from checker.hiring import review
from checker.render import duration
from checker.reports import isolation_text

CODE_LINES = 400  # a longer file is cut, with a note: the reviewer has the file itself
PICTURE_MAX = 12  # larger weight grids are described, not drawn

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c1917;background:#fafaf9;margin:0 24px 48px}
h1{font-size:24px;margin:20px 0 4px}h2{font-size:19px;margin:28px 0 6px}h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse}
table.ranking th{background:#14532d;color:#fff;text-align:left;padding:6px 10px}
table.ranking td,table.pairs td,table.pairs th{border-bottom:1px solid #d6d3d1;padding:5px 10px;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.status-passed{color:#15803d;font-weight:600}.status-failed,.status-error,.status-timeout{color:#b91c1c;font-weight:600}
.status-not-started{color:#a16207;font-weight:600}
.flag{color:#9a3412}.flags li{margin:2px 0}
section.candidate{border-top:3px solid #14532d;margin-top:32px}
.kata{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:16px;align-items:start}
pre.code{background:#1e293b;color:#e2e8f0;padding:10px 12px;margin:0;overflow-x:auto;border-radius:4px;
font:12px/1.5 ui-monospace,monospace}
pre.code .ln{color:#64748b;user-select:none;display:inline-block;width:3.5em}
pre.code{white-space:pre-wrap;overflow-wrap:anywhere}pre.code .wide{display:block;outline:2px solid #f59e0b}
mark.hidden{background:#f59e0b;color:#1c1917;font-weight:700;border-radius:3px;padding:0 2px}
.check{background:#fff;border-left:4px solid #b91c1c;padding:6px 10px;margin:0 0 10px;overflow-wrap:anywhere}
.check.ok{border-left-color:#15803d}
.check .bug{color:#7e22ce;font-weight:600}
table.grid{margin:6px 0;font:11px ui-monospace,monospace}
table.grid td,table.grid th{border:1px solid #e7e5e4;padding:2px 4px;text-align:right;min-width:2.6em}
table.grid td.differs{outline:2px solid #dc2626;outline-offset:-2px;font-weight:700}
table.grid td.blocked{background:#e7e5e4;color:#78716c}
.grids{display:flex;gap:12px;flex-wrap:wrap}
.muted{color:#78716c}
"""


def page(batch):
    """The whole page, as text."""
    report = batch.report
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
             "<title>Kata grading report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>Kata grading report</h1>",
             f"<p>{len(batch.candidates)} candidates, graded in {report.seconds:.1f} s. "
             f"{_e(isolation_text(report.isolation))}"
             " A score is the weighted share of a kata's hidden checks passed; the total weighs the katas as the "
             "roster's rubric says. File times are the candidate's own clock and prove nothing alone; similar "
             "files are for a human to compare, never a verdict.</p>",
             _ranking(batch), _pairs(batch)]
    parts += [_guarded(number, candidate) for number, candidate in enumerate(batch.candidates, start=1)]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _guarded(number, candidate):
    """A candidate's section; one that cannot be drawn is a section saying why, never a missing page."""
    try:
        return _candidate(number, candidate)
    except Exception as error:  # noqa: BLE001 - one candidate's data must not cost the page
        return (f'<section class="candidate" id="c{number}"><h2>{candidate.rank}. {_e(candidate.path)}</h2>'
                f'<p class="flag">This section could not be drawn ({_e(type(error).__name__)}: {_e(error)}): '
                "read the candidate's files and the report's JSON.</p></section>")


def _e(text):
    return escape.html(text)


def _a(text):
    return escape.html(text, attribute=True)


def _ranking(batch):
    rows = []
    for number, c in enumerate(batch.candidates, start=1):
        notes = ([f"over time ({duration(c.span_seconds)} of {c.minutes} min)"] if c.over_time else []) + \
                ([f"{len(c.similar)} similar pair{'s' if len(c.similar) > 1 else ''}"] if c.similar else []) + \
                ([f"{len(c.flags)} integrity flag{'s' if len(c.flags) > 1 else ''}"] if c.flags else [])
        katas = " ".join(f'<span class="status-{_a(k.status)}" title="{_a(k.slug)}: {_a(k.status)}">'
                         f"{_e(k.kata)}&nbsp;{k.score:.0f}</span>" for k in c.katas) or _e(c.error)
        rows.append(f'<tr><td class="num">{c.rank}</td><td><a href="#c{number}">{_e(c.path)}</a></td>'
                    f'<td class="num"><b>{c.total:.1f}</b></td><td>{_e(c.summary)}</td><td>{katas}</td>'
                    f'<td>{_e(duration(c.span_seconds) if c.span_seconds is not None else "-")}</td>'
                    f'<td class="flag">{_e("; ".join(notes))}</td></tr>')
    return ('<h2 id="ranking">Ranking</h2><table class="ranking"><thead><tr><th>#</th><th>candidate</th>'
            "<th>total</th><th>summary</th><th>kata scores</th><th>time used</th><th>flags</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _pairs(batch):
    if not batch.pairs:
        return f'<p class="muted">No pair of files reached similarity {batch.threshold:g}.</p>'
    rows = "".join(f"<tr><td>{_e(p.kata)}</td><td>{_e(p.a)}</td><td>{_e(p.b)}</td><td class='num'>{p.similarity:.2f}"
                   "</td></tr>" for p in batch.pairs)
    return (f'<h2 id="similar">Similar files</h2><p>Pairs at or above {batch.threshold:g} once names, comments and '
            "layout are set aside. Look at both files: a kata has few good answers.</p>"
            f'<table class="pairs"><tr><th>kata</th><th>candidate</th><th>candidate</th><th>similarity</th></tr>'
            f"{rows}</table>")


def _candidate(number, c):
    flags = list(c.flags) + ([f"not graded: {c.error}"] if c.error else [])
    if c.over_time:
        flags.append(f"over time: the newest kata file changed {duration(c.span_seconds)} after the pack was issued "
                     f"({c.minutes} min given)")
    flags += [f"kata {p.kata} is {p.similarity:.2f} similar to {p.b if p.a == c.path else p.a}" for p in c.similar]
    for kata in c.katas:
        flags += [f"kata {kata.kata} review: {reason}" for reason in kata.review]
    record = c.record or {}
    time = (f"Issued {_e(c.issued or 'unknown (unrostered)')} · last change to a kata file {_e(c.last_change or '-')}"
            f" · span {_e(duration(c.span_seconds) if c.span_seconds is not None else '-')}"
            f"{f' of {c.minutes} min' if c.minutes else ''} · seed {c.seed} · kata version "
            f"{_e(record.get('kata_version', '-'))}")
    parts = [f'<section class="candidate" id="c{number}"><h2>{c.rank}. {_e(c.path)} — {c.total:.1f}/100</h2>',
             f'<p class="summary"><b>{_e(c.summary)}</b></p><p class="muted">{time}</p>']
    if flags:
        parts.append('<ul class="flags">' + "".join(f'<li class="flag">{_e(flag)}</li>' for flag in flags) + "</ul>")
    parts += [_kata(c, kata) for kata in c.katas]
    parts.append("</section>")
    return "\n".join(parts)


def _kata(candidate, kata):
    head = (f'<h3>{_e(kata.kata)} {_e(kata.slug)} — <span class="status-{_a(kata.status)}">{_e(kata.status)}</span>'
            f" · {kata.passed} of {kata.total} checks · {kata.score:.0f}/100"
            f"{' · untouched stub' if kata.untouched else ''}"
            f"{' · written in PyTorch' if kata.check.get('frontend') == 'torch' else ''}"
            f"{' · weight ' + format(kata.weight, 'g') if kata.weight != 1 else ''}"
            f"{' · bugs: ' + _e(', '.join(kata.bugs)) if kata.bugs else ''}</h3>")
    if kata.plants:
        plants = kata.plants
        remaining = "cannot tell" if plants["remaining"] is None else (", ".join(plants["remaining"]) or "none")
        head += (f"<p>Planted bugs: {_e(', '.join(plants['planted']))}. "
                 f"Fixed: {_e(', '.join(plants['fixed']) or 'none')}"
                 f". Remaining: {_e(remaining)}.</p>")
    source = candidate.files.get(kata.kata)
    return (f'{head}<div class="kata"><div>{_code(source)}<p class="muted">SHA-256 {_e(kata.sha256 or "-")} · '
            f"modified {_e(kata.modified or '-')}</p></div><div>{_checks(kata)}</div></div>")


def _code(source):
    """The file as Python reads it: its lines where Python ends them, every hidden character shown as a
    badge (<U+202E>), a line wider than the reviewer sees marked and wrapped, never off-screen."""
    if source is None:
        return '<pre class="code">(not graded: the file was refused or missing)</pre>'
    lines = review.LINES.split(bytes(source).decode("utf-8", errors="replace"))
    if lines and lines[-1] == "":
        lines.pop()
    shown = "".join(_line(number, line) for number, line in enumerate(lines[:CODE_LINES], start=1))
    more = f"\n… {len(lines) - CODE_LINES} more lines" if len(lines) > CODE_LINES else ""
    return f'<pre class="code">{shown}{_e(more)}</pre>'


def _line(number, line):
    width = len(line.rstrip().expandtabs(8))
    if width <= review.WIDTH:
        return f'<span class="ln">{number}</span>{_e(line)}\n'
    return (f'<span class="wide"><span class="ln">{number}</span><mark class="hidden">{width} columns: '
            f"wrapped, code past column {review.WIDTH}</mark> {_e(line)}</span>\n")


def _checks(kata):
    tests = kata.check.get("tests", [])
    failing = [test for test in tests if test["outcome"] != "passed"]
    pictures = {}
    for picture in kata.check.get("pictures") or []:
        pictures.setdefault(picture["test"], []).append(picture)
    if not failing:
        return f'<div class="check ok">Every check passed ({kata.passed} of {kata.total}).</div>'
    parts = [f"<p><b>{len(failing)} failing check{'s' if len(failing) > 1 else ''}</b>"
             f"{'' if len(tests) == kata.total else f' ({kata.total - len(tests)} never ran)'}</p>"]
    for test in failing:
        bug = f' <span class="bug">→ {_e(test["bug"])}</span>' if test.get("bug") else ""
        grids = "".join(_grid(picture) for picture in pictures.get(test["name"], []))
        parts.append(f'<div class="check"><b>{_e(test["name"])}</b> <span class="status-{_a(test["outcome"])}">'
                     f'{_e(test["outcome"])}</span>{bug}<br>{_e(test.get("message", ""))}{grids}</div>')
    return "".join(parts)


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

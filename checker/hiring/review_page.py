"""`kata grade --html`: the review page, self-contained HTML a reviewer opens in a browser, on a phone or on paper.

The ranking table (total, each kata's score, time used, the worst concern, similar pairs), the pairs,
then each candidate: a summary that stands alone (scores, time, every concern ranked by severity:
concerns.py), then each kata's code against the issued stub beside its failing checks (review_code.py).
`--html PATH.html` writes one page (each candidate starts a printed page); `--html DIR` writes DIR/index.html
and a page per candidate, to share one alone. The page reflows to one column on a phone (nothing scrolls
sideways at 390 px: the ranking becomes one card per candidate) and prints whole (code wraps, the folded
stub stays folded). No script, no server, no network, no external asset; a Content Security Policy forbids
them all, and every text that reaches the page is escaped: candidate code is hostile. It decides nothing.
"""

import re
from pathlib import Path

from checker.present import escape
from checker.hiring import concerns as ranked
from checker.hiring import review_code, similarity_view
from checker.hiring.report import isolation_text
from checker.present.render import duration

_CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c1917;background:#fafaf9;margin:0 24px 48px;
overflow-wrap:break-word}
.check,.card p{overflow-wrap:anywhere}
h1{font-size:24px;margin:20px 0 4px}h2{font-size:19px;margin:28px 0 6px}h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;max-width:100%}
table.ranking th{background:#14532d;color:#fff;text-align:left;padding:6px 10px}
table.ranking td,table.pairs td,table.pairs th,table.katas td,table.katas th{border-bottom:1px solid #d6d3d1;
padding:5px 10px;vertical-align:top;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.status-passed{color:#15803d;font-weight:600}.status-failed,.status-error,.status-timeout{color:#b91c1c;font-weight:600}
.status-not-started{color:#a16207;font-weight:600}
.flag{color:#9a3412}
.over{background:#fee2e2;color:#991b1b;font-weight:700;padding:0 4px;border-radius:3px}
section.candidate{border-top:3px solid #14532d;margin-top:32px}
.card{background:#fff;border:1px solid #d6d3d1;border-radius:6px;padding:8px 14px;margin:8px 0 16px}
ul.concerns{list-style:none;padding:0;margin:6px 0}ul.concerns li{margin:3px 0;padding-left:6px;border-left:4px solid #a8a29e}
.sev{display:inline-block;min-width:7.5em;font-size:12px;font-weight:700;text-transform:uppercase}
ul.concerns li.sev-tampering{border-left-color:#b91c1c}li.sev-tampering .sev{color:#b91c1c}
ul.concerns li.sev-reaching-out{border-left-color:#c2410c}li.sev-reaching-out .sev{color:#c2410c}
ul.concerns li.sev-record{border-left-color:#a16207}li.sev-record .sev{color:#a16207}
li.sev-time .sev,li.sev-similar .sev{color:#7e22ce}ul.concerns li.sev-time,ul.concerns li.sev-similar{border-left-color:#7e22ce}
.kata{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:16px;align-items:start}
div.code{background:#1e293b;color:#e2e8f0;padding:8px 10px;border-radius:4px;font:12px/1.5 ui-monospace,monospace}
div.code .l{white-space:pre-wrap;overflow-wrap:anywhere;padding-left:3.2em;text-indent:-3.2em}
div.code .ln{color:#64748b;user-select:none;display:inline-block;width:3.2em;text-indent:0}
div.code .add{background:#14532d}div.code .del{background:#7f1d1d;text-decoration:line-through;color:#fecaca}
div.code .wide{outline:2px solid #f59e0b}
details.fold summary{color:#94a3b8;cursor:pointer;padding-left:3.2em}
mark.hidden{background:#f59e0b;color:#1c1917;font-weight:700;border-radius:3px;padding:0 2px}
.check{background:#fff;border-left:4px solid #b91c1c;padding:6px 10px;margin:0 0 10px}
.check.ok{border-left-color:#15803d}.check.folded{border-left-style:double;border-left-width:6px}
.check .bug{color:#7e22ce;font-weight:600}
table.grid{margin:6px 0;font:11px ui-monospace,monospace}
table.grid td,table.grid th{border:1px solid #e7e5e4;padding:2px 4px;text-align:right;min-width:2.6em}
table.grid td.differs{outline:2px solid #dc2626;outline-offset:-2px;font-weight:700}
table.grid td.blocked{background:#e7e5e4;color:#78716c}
.grids{display:flex;gap:12px;flex-wrap:wrap}
.muted{color:#78716c}.print-only{display:none}
@media screen and (max-width:760px){
body{margin:0 10px 32px}.kata{display:block}.kata>div+div{margin-top:10px}
table.ranking,table.ranking tbody,table.ranking tr,table.ranking td,table.pairs,table.pairs tbody,table.pairs tr,
table.pairs td{display:block;width:100%}
table.ranking thead,table.pairs tr.head{display:none}
table.ranking tr,table.pairs tr{border:1px solid #d6d3d1;border-radius:6px;margin:0 0 10px;background:#fff;padding:4px 0}
table.ranking td,table.pairs td{border:0;padding:2px 10px;text-align:left;overflow-wrap:anywhere}
table.ranking td::before,table.pairs td::before{content:attr(data-label) ": ";color:#78716c;font-weight:600}
table.grid{font-size:10px}table.grid td,table.grid th{min-width:0;padding:1px 2px}
table.katas{width:100%;table-layout:fixed}table.katas td,table.katas th{padding:3px 4px;overflow-wrap:anywhere}
.side{display:block}.side>div+div{margin-top:8px}pre.pair-code{white-space:pre-wrap;overflow-wrap:anywhere}
}
@media print{
@page{size:A4;margin:12mm}
body{margin:0;background:#fff;font-size:10pt}
section.candidate{break-before:page;border-top:0;margin-top:0}
.kata{display:block}.kata>div+div{margin-top:6px}
div.code{background:#fff;color:#000;border:1px solid #999;font-size:7.5pt;line-height:1.3;padding:4px 6px}
div.code .ln{color:#666}div.code .add{background:#dcfce7}div.code .del{background:#fee2e2;color:#7f1d1d}
details.fold summary{color:#555}
#similar-side,.pair{display:none}.print-only{display:block}
.check{break-inside:avoid;padding:3px 8px;margin:0 0 5px}
a{color:inherit;text-decoration:none}
}
"""


def _e(text):
    return escape.html(text)


def _a(text):
    return escape.html(text, attribute=True)


def write(batch, path):
    """Write the review page to `path` (a .html file), else DIR/index.html and a page per candidate; the
    files written."""
    path = Path(path)
    if path.suffix.lower() in (".html", ".htm"):
        path.write_text(page(batch), encoding="utf-8")
        return [path]
    path.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages(batch).items():
        (path / name).write_text(text, encoding="utf-8")
        written.append(path / name)
    return written


def page_name(number, candidate):
    """A candidate's page in `--html DIR`: its place and a safe form of its folder's name."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(candidate.path).name)[:40].strip("-") or "candidate"
    return f"{number:02d}-{stem}.html"


def page(batch):
    """The whole batch on one page, as text."""
    parts = _head("Kata grading report") + _intro(batch) + [_ranking(batch, lambda n, c: f"#c{n}"), _pairs(batch),
                                                            similarity_view.html_section(batch)]
    parts += [_guarded(number, candidate) for number, candidate in enumerate(batch.candidates, start=1)]
    return "\n".join(parts + ["</body></html>"]) + "\n"


def pages(batch):
    """{file name: text}: index.html (the ranking, the pairs) and a page per candidate that stands alone."""
    link = lambda number, candidate: page_name(number, candidate)  # noqa: E731
    index = _head("Kata grading report") + _intro(batch) + [_ranking(batch, link), _pairs(batch),
                                                            similarity_view.html_section(batch)]
    found = {"index.html": "\n".join(index + ["</body></html>"]) + "\n"}
    for number, candidate in enumerate(batch.candidates, start=1):
        title = f"Kata grading: {escape.visible(candidate.path)}"
        body = _head(title) + ['<p><a href="index.html">← the ranking</a></p>', _guarded(number, candidate)]
        found[page_name(number, candidate)] = "\n".join(body + ["</body></html>"]) + "\n"
    return found


def _head(title):
    return ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
            f"<title>{_e(title)}</title>",
            f"<style>{similarity_view.CSS}{_CSS}</style></head><body>"]  # the page's own rules last: they win


def _intro(batch):
    report = batch.report
    return ["<h1>Kata grading report</h1>",
            f"<p>{len(batch.candidates)} candidates, graded in {report.seconds:.1f} s. "
            f"{_e(isolation_text(report.isolation))}"
            " A score is the weighted share of a kata's hidden checks passed; the total weighs the katas as the "
            "roster's rubric says. File times are the candidate's own clock and prove nothing alone; similar "
            "files are for a human to compare, never a verdict.</p>"]


def _guarded(number, candidate):
    """A candidate's section; one that cannot be drawn is a section saying why, never a missing page."""
    try:
        return _candidate(number, candidate)
    except Exception as error:  # noqa: BLE001 - one candidate's data must not cost the page
        return (f'<section class="candidate" id="c{number}"><h2>{candidate.rank}. {_e(candidate.path)}</h2>'
                f'<p class="flag">This section could not be drawn ({_e(type(error).__name__)}: {_e(error)}): '
                "read the candidate's files and the report's JSON.</p></section>")


def _time_used(c):
    if c.span_seconds is None:
        return "-"
    used = _e(duration(c.span_seconds)) + (f" of {c.minutes} min" if c.minutes else "")
    return used + (' <span class="over">over time</span>' if c.over_time else "")


def _ranking(batch, link):
    rows = []
    for number, c in enumerate(batch.candidates, start=1):
        katas = " ".join(f'<span class="status-{_a(k.status)}" title="{_a(k.slug)}: {_a(k.status)}">'
                         f"{_e(k.kata)}&nbsp;{k.score:.0f}</span>" for k in c.katas) or _e(c.error)
        worst = ranked.headline(c)
        others = sorted({p.other(c.path) for p in c.similar})
        similar = f"{_e(', '.join(others))} (kata {_e(', '.join(sorted({p.kata for p in c.similar})))})" \
            if others else ""
        total = "-" if c.error else f"{c.total:.1f}"
        rows.append(f'<tr><td class="num" data-label="rank">{c.rank}</td><td data-label="candidate">'
                    f'<a href="{_a(link(number, c))}">{_e(c.path)}</a></td>'
                    f'<td class="num" data-label="total"><b>{total}</b></td><td data-label="kata scores">{katas}</td>'
                    f'<td data-label="time used">{_time_used(c)}</td>'
                    f'<td class="flag" data-label="flags">{_e(worst) or "-"}</td>'
                    f'<td data-label="similar to">{similar or "-"}</td></tr>')
    return ('<h2 id="ranking">Ranking</h2><table class="ranking"><thead><tr><th>#</th><th>candidate</th>'
            "<th>total</th><th>kata scores</th><th>time used</th><th>flags</th><th>similar to</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _pairs(batch):
    if not batch.pairs:
        return f'<p class="muted">No pair of files reached similarity {batch.threshold:g}.</p>'
    rows = "".join(f'<tr><td data-label="kata">{_e(p.kata)}</td><td data-label="candidate">{_e(p.a)}</td>'
                   f'<td data-label="candidate">{_e(p.b)}</td><td class="num" data-label="similarity">'
                   f"{p.similarity:.2f}</td></tr>" for p in batch.pairs)
    return (f'<h2 id="similar">Similar files</h2><p>Pairs at or above {batch.threshold:g} once names, comments and '
            "layout are set aside. Look at both files: a kata has few good answers.</p>"
            '<p class="muted print-only">Printed, the pairs are this table; their side-by-side views are on the '
            "screen page only (each would take a page or two).</p>"
            f'<table class="pairs"><tr class="head"><th>kata</th><th>candidate</th><th>candidate</th><th>similarity</th></tr>'
            f"{rows}</table>")


def _candidate(number, c):
    record = c.record or {}
    total = "not graded" if c.error else f"{c.total:.1f}/100"
    facts = (f"Time used {_time_used(c)} · issued {_e(c.issued or 'unknown')} · last change to a kata file "
             f"{_e(c.last_change or '-')} (the candidate's clock) · seed {c.seed} · pack {_e(record.get('pack', '-'))}"
             f" · kata version {_e(record.get('kata_version', '-'))}")
    rows = "".join(f'<tr><td>{_e(k.kata)} {_e(k.slug)}</td><td class="status-{_a(k.status)}">{_e(k.status)}'
                   f"{' (untouched)' if k.untouched else ''}</td><td class='num'>{k.score:.0f}</td>"
                   f"<td class='num'>{k.passed}/{k.total}</td><td>{_e(', '.join(k.bugs)) or '-'}</td></tr>"
                   for k in c.katas)
    katas = ("<table class='katas'><tr><th>kata</th><th>status</th><th>score</th><th>checks</th><th>bugs named</th>"
             f"</tr>{rows}</table>") if rows else f'<p class="flag">Not graded: {_e(c.error)}</p>'
    found = ranked.of_candidate(c)
    concerns = ('<ul class="concerns">' + "".join(
        f'<li class="sev-{_a(concern.label.replace(" ", "-"))}"><span class="sev">{_e(concern.label)}</span> '
        f"{_e(concern.text)}{f' (×{concern.count})' if concern.count > 1 else ''}</li>" for concern in found)
        + "</ul>") if found else '<p class="muted">Nothing flagged.</p>'
    parts = [f'<section class="candidate" id="c{number}"><h2>{c.rank}. {_e(c.path)} — {total}</h2>',
             f'<div class="card summary"><p><b>{_e(c.summary)}</b></p><p class="muted">{facts}</p>{katas}'
             f"{concerns}</div>"]
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
    head += _follow_ups(kata.check.get("follow_up") or [])
    shown = '<p class="muted">The stub as issued, untouched.</p>' if kata.untouched else \
        review_code.code(candidate, kata)
    return (f'{head}<div class="kata"><div>{shown}<p class="muted">SHA-256 '
            f"{_e(kata.sha256 or '-')} · modified {_e(kata.modified or '-')}</p></div>"
            f"<div>{review_code.checks(kata)}</div></div>")


def _follow_ups(questions):
    """kata defend's questions about the candidate's own lines, each with its computed answer (for the onsite)."""
    if not questions:
        return ""
    items = "".join(f"<li>{_e(question.get('ask', ''))}</li>" for question in questions[:3])
    return f'<p><b>Follow-up questions</b> (answers computed by running the candidate\'s file):</p><ul>{items}</ul>'

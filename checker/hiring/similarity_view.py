"""The flagged pairs (similarity.Pair) as a reviewer reads them: side by side on the review page, a table in Markdown.

Each pair shows both files with the lines that match highlighted, so a reviewer can judge in seconds
whether it is a copy or two answers that coincide (a kata has few good answers). Every string that
reaches the page or the Markdown (paths, code) is escaped for it: both are candidate-controlled. Like the
other renderers, this formats and decides nothing.
"""

from checker.present import escape
from checker.hiring import similarity

CODE_LINES = 400  # a longer file is cut, with a note
LINE_CHARACTERS = 160  # a longer line is cut, with a note (the candidate's section shows it whole)
CONTEXT = 2  # unmatched lines kept around a match; longer unmatched stretches are folded
PAIRS_SHOWN = 12  # side-by-side views on one page; the table and the JSON list them all
CSS = """
.pair{margin:14px 0 24px}.pair h3{margin:8px 0 4px}
.side{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px;align-items:start}
.side h4{margin:4px 0;font-size:13px;overflow-wrap:anywhere}
pre.pair-code{background:#1e293b;color:#e2e8f0;padding:10px 12px;margin:0;overflow-x:auto;border-radius:4px;
font:12px/1.5 ui-monospace,monospace}
pre.pair-code .ln{color:#64748b;user-select:none;display:inline-block;width:3.5em}
pre.pair-code .fold{color:#94a3b8;font-style:italic}
pre.pair-code .hit{background:#854d0e;color:#fef9c3;display:inline-block;min-width:100%}
"""
_MATCHES = ("the lines whose code matches once names, layout, comments, dead assignments, the order of independent "
            "statements and NumPy's equivalent spellings are set aside; the stub's own text never counts.")
_NOT_A_VERDICT = ("A pointer for a human to compare, never a verdict: a kata has few good answers, and two can "
                  "coincide.")


def closest_others(candidate, names, shown=3):
    """Whom `candidate`'s flagged pairs point at, the closest first (`names`: path -> name), at most `shown`
    of them, and how many more there are: the copy's source leads, whatever its name sorts as."""
    best = {}
    for pair in candidate.similar:
        other = names.get(pair.other(candidate.path), pair.other(candidate.path))
        best[other] = max(best.get(other, 0.0), pair.similarity)
    ordered = sorted(best, key=lambda other: (-best[other], other))
    return ordered[:shown], max(0, len(ordered) - shown)


def html_section(batch):
    """The pairs side by side ("" when there are none)."""
    if not batch.pairs:
        return ""
    files = {candidate.path: candidate.files for candidate in batch.candidates}
    parts = ['<h2 id="similar-side">Similar files side by side</h2>',
             f'<p class="muted">Highlighted: {_e(_MATCHES)} {_e(_NOT_A_VERDICT)}</p>']
    shown = {}  # the same two files, whoever handed them in, are drawn once
    for number, pair in enumerate(batch.pairs[:PAIRS_SHOWN], start=1):
        left = files.get(pair.a, {}).get(pair.kata)
        right = similarity.reference_source(pair.kata) if pair.kind == similarity.REFERENCE \
            else files.get(pair.b, {}).get(pair.kata)
        seen = shown.setdefault((pair.kata, left, right, pair.lines_a, pair.lines_b), number)
        if seen != number:
            parts.append(f'<div class="pair" id="pair{number}"><h3>kata {_e(pair.kata)}: {_e(pair.a)} ~ '
                         f'{_e(_label(pair))} — {pair.similarity:.2f}</h3><p class="muted">The same two files as '
                         f'<a href="#pair{seen}">pair {seen}</a>.</p></div>')
            continue
        parts.append(f'<div class="pair" id="pair{number}"><h3>kata {_e(pair.kata)}: {_e(pair.a)} ~ '
                     f'{_e(_label(pair))} — {pair.similarity:.2f}</h3><p class="muted">{_e(pair.said)}</p>'
                     '<div class="side">'
                     f"<div><h4>{_e(pair.a)}: lines {_e(_ranges(pair.lines_a))}</h4>{_code(left, pair.lines_a)}</div>"
                     f"<div><h4>{_e(_label(pair))}: lines {_e(_ranges(pair.lines_b))}</h4>"
                     f"{_code(right, pair.lines_b)}</div></div></div>")
    if len(batch.pairs) > PAIRS_SHOWN:
        parts.append(f'<p class="muted">… and {len(batch.pairs) - PAIRS_SHOWN} more pairs: the table above and '
                     "the JSON list them all, with their lines.</p>")
    return "\n".join(parts)


def closest_lines(batch):
    """Markdown rows: each kata's closest pairs, flagged or not, with how close honest pairs of the kata are."""
    closest = getattr(batch, "closest", None) or {}
    if not closest:
        return []
    lines = ["Closest pairs of each kata, flagged or not (a pair is flagged at its kata's line, set by how close "
             "independent honest answers of that kata are):", "",
             "| kata | candidate | compared with | similarity | line | against honest pairs |", "|---|---|---|---:|---:|---|"]
    lines += [f"| {pair.kata} | {_md(pair.a)} | {_md(_label(pair))} | {pair.similarity:.2f} | {pair.line:.2f} | "
              f"{_md(pair.said)} |" for kata in sorted(closest) for pair in closest[kata]]
    return lines + [""]


def markdown(batch):
    """The Markdown report's section on similar files, with each pair's figure and matching lines."""
    lines = ["", "## Similar files", ""]
    if not batch.pairs:
        return "\n".join(lines + ["No pair of files reached its kata's flag line.", ""] + closest_lines(batch))
    lines += [f"Pairs at or above their kata's flag line; the lines columns give, in each file, {_MATCHES} "
              f"{_NOT_A_VERDICT}", "",
              "| kata | candidate | compared with | similarity | against honest pairs | lines (candidate) | "
              "lines (compared with) |", "|---|---|---|---:|---|---|---|"]
    lines += [f"| {pair.kata} | {_md(pair.a)} | {_md(_label(pair))} | {pair.similarity:.2f} | {_md(pair.said)} | "
              f"{_ranges(pair.lines_a)} | {_ranges(pair.lines_b)} |" for pair in batch.pairs]
    return "\n".join(lines + [""] + closest_lines(batch))


def _label(pair):
    return "the reference solution" if pair.kind == similarity.REFERENCE else pair.b


def _ranges(ranges):
    return ", ".join(f"{first}-{last}" if last > first else str(first) for first, last in ranges) or "-"


def _e(text):
    return escape.html(text)


def _md(text):
    return escape.markdown(text)


def _code(source, ranges):
    if source is None:
        return '<pre class="pair-code">(not available)</pre>'
    hit = set()
    for first, last in ranges:
        hit.update(range(first, min(last, CODE_LINES) + 1))
    every = bytes(source).decode("utf-8", errors="replace").splitlines()
    lines = every[:CODE_LINES]
    near = {number for line in hit for number in range(line - CONTEXT, line + CONTEXT + 1)}
    shown, waiting = [], []  # unmatched lines far from a match: folded when there are a few
    for number, line in enumerate(lines + [None], start=1):
        if line is not None and number not in near:
            waiting.append((number, line))
            continue
        if len(waiting) > CONTEXT:
            shown.append(f'<span class="line fold">… {len(waiting)} lines that do not match</span>\n')
        else:
            shown += [_line(held, text, False) for held, text in waiting]
        waiting = []
        if line is not None:
            shown.append(_line(number, line, number in hit))
    if len(every) > CODE_LINES:
        shown.append(f'<span class="line fold">… {len(every) - CODE_LINES} more lines, not shown</span>\n')
    return f'<pre class="pair-code">{"".join(shown)}</pre>'


def _line(number, line, hit):
    cut = f" … ({len(line) - LINE_CHARACTERS} more characters)" if len(line) > LINE_CHARACTERS else ""
    return (f'<span class="{"hit" if hit else "line"}"><span class="ln">{number}</span>'
            f"{_e(line[:LINE_CHARACTERS])}{_e(cut)}</span>\n")

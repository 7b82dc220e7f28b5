"""A scored batch (scoring.Batch) for people and machines: the terminal ranking, CSV and the `--json` object.

Everything here formats what it is given; nothing here decides anything. The JSON and CSV shapes are
documented in the README ("The report's JSON") and kept stable: fields are added, never renamed.
"""

import csv
import io

import click

from checker.present import escape
from checker.hiring import concerns, similarity_view
from checker.present.render import duration

JSON_FORMAT = 1
GRADER_ONLY = ("pictures", "details")  # kept for the review page; the JSON carries `plants` instead
CSV_COLUMNS = ["rank", "candidate", "total", "kata", "slug", "status", "score", "checks_passed", "checks_total",
               "kata_weight", "untouched", "bugs", "plants_fixed", "plants_remaining", "review", "sha256", "modified",
               "seed",
               "kata_version", "issued", "last_change", "span_seconds", "minutes", "over_time", "similar_to", "flags"]
_STYLE = {"passed": "green", "failed": "red", "error": "red", "timeout": "red", "not-started": "yellow"}


def ranking_text(batch, limit=None):
    """`kata grade`'s closing lines: the candidates ranked, one line each, and the pairs to compare."""
    shown = batch.candidates[:limit] if limit else batch.candidates
    names = {c.path: c.name for c in batch.candidates}
    width = max((len(escape.terminal(c.name)) for c in shown), default=0)
    lines = [click.style("Ranking", bold=True) + " (score: the weighted share of hidden checks passed; HELD: a tampering concern, ranked after "
                                                "every clean candidate)"]
    for candidate in shown:
        notes = []
        if candidate.over_time:
            notes.append(f"over time ({duration(candidate.span_seconds)} of {candidate.minutes} min)")
        if candidate.similar:
            others, hidden = similarity_view.closest_others(candidate, names)
            more = f" (+{hidden} more)" if hidden else ""
            notes.append("similar to " + escape.terminal(", ".join(others)) + more)
        worst = concerns.headline(candidate)
        if worst and not candidate.held:
            notes.append(escape.terminal(worst[:100] + ("…" if len(worst) > 100 else "")))
        total = click.style(f"{candidate.total:5.1f}", bold=True) if not candidate.error else "    -"
        held = ""
        if candidate.held:  # integrity before score: said first, and ranked after every clean candidate
            first = candidate.held[0].text
            more = f" (+{len(candidate.held) - 1} more)" if len(candidate.held) > 1 else ""
            held = click.style(f"HELD: tampering: {escape.terminal(first[:90])}{more}", fg="red", bold=True) + \
                "\n" + " " * (width + 7)
        line = f"{candidate.rank:>3}. {escape.terminal(candidate.name):<{width}}  {held}{total}  " \
               f"{escape.terminal(candidate.summary)}"
        lines.append(line + (click.style("  ! " + "; ".join(notes), fg="yellow") if notes else ""))
    if limit and len(batch.candidates) > limit:
        lines.append(f"     ... and {len(batch.candidates) - limit} more: --csv, --json or --html has them all")
    return "\n".join(lines)


def _other(pair, path):
    return pair.b if pair.a == path else pair.a


def _lines(ranges):
    return [list(pair) for pair in ranges]


def kata_json(kata):
    """A graded check object as SPEC.md has it (plus sha256, review), with its score."""
    check = {key: value for key, value in kata.check.items() if key not in GRADER_ONLY}
    check.update({"score": kata.score, "checks_passed": kata.passed, "checks_total": kata.total,
                  "weight": kata.weight, "modified": kata.modified, "untouched": kata.untouched, "slow": kata.slow,
                  "capped": kata.capped})
    if kata.plants is not None:
        check["plants"] = kata.plants
    return check


def candidate_json(candidate):
    spread = candidate.spread
    data = {"path": candidate.path, "name": candidate.name, "held": [concern.text for concern in candidate.held],
            "seed": candidate.seed, "katas": [kata_json(kata) for kata in candidate.katas],
            "flags": candidate.flags, "rank": candidate.rank, "score": round(candidate.total, 1),
            "summary": candidate.summary, "kata_version": (candidate.record or {}).get("kata_version"),
            "roster": candidate.record,
            "time": {"issued": candidate.issued, "last_change": candidate.last_change,
                     "span_seconds": None if candidate.span_seconds is None else round(candidate.span_seconds, 1),
                     "minutes": candidate.minutes, "over_time": candidate.over_time,
                     "spread": None if spread is None else [round(spread[0]), round(spread[1])]},
            "similar": [{"kata": pair.kata, "other": _other(pair, candidate.path), "similarity": pair.similarity,
                         "kind": pair.kind, "lines": _lines(pair.lines_a if pair.a == candidate.path else pair.lines_b),
                         "other_lines": _lines(pair.lines_b if pair.a == candidate.path else pair.lines_a)}
                        for pair in candidate.similar]}
    return {**data, "error": candidate.error} if candidate.error else data


def batch_json(batch):
    """`kata grade --json`: the whole batch, candidates in the order given (each with its rank)."""
    order = {workspace.path: index for index, workspace in enumerate(batch.report.workspaces)}
    candidates = sorted(batch.candidates, key=lambda c: order[c.path])
    return {"format": JSON_FORMAT, "isolation": batch.report.isolation,
            "workspaces": [candidate_json(candidate) for candidate in candidates],
            "similar": [{"kata": p.kata, "a": p.a, "b": p.b, "similarity": p.similarity, "kind": p.kind,
                         "lines_a": _lines(p.lines_a), "lines_b": _lines(p.lines_b)} for p in batch.pairs],
            "similarity_threshold": batch.threshold}


def csv_text(batch):
    """One row per candidate and kata (a workspace that could not be graded: one row, kata "-")."""
    sink = io.StringIO()
    writer = _SafeWriter(sink)
    writer.writeheader()
    for candidate in batch.candidates:
        record = candidate.record or {}
        common = {"rank": candidate.rank, "candidate": candidate.path, "total": f"{candidate.total:.1f}",
                  "seed": candidate.seed, "kata_version": record.get("kata_version", ""),
                  "issued": candidate.issued or "", "last_change": candidate.last_change or "",
                  "span_seconds": "" if candidate.span_seconds is None else f"{candidate.span_seconds:.0f}",
                  "minutes": candidate.minutes or "", "over_time": "yes" if candidate.over_time else "no",
                  "flags": "; ".join(candidate.flags + ([f"not graded: {candidate.error}"] if candidate.error else []))}
        if candidate.error:
            writer.writerow({**common, "kata": "-", "status": "error"})
        for kata in candidate.katas:
            similar = [f"{_other(p, candidate.path)} ({p.similarity:.2f})" for p in candidate.similar
                       if p.kata == kata.kata]
            plants = kata.plants or {}
            writer.writerow({**common, "kata": kata.kata, "slug": kata.slug, "status": kata.status,
                             "score": f"{kata.score:.1f}", "checks_passed": kata.passed, "checks_total": kata.total,
                             "kata_weight": f"{kata.weight:g}", "untouched": "yes" if kata.untouched else "no",
                             "bugs": " ".join(kata.bugs),
                             "plants_fixed": " ".join(plants.get("fixed") or []),
                             "plants_remaining": "?" if plants and plants.get("remaining") is None
                             else " ".join(plants.get("remaining") or []),
                             "review": "; ".join(kata.review), "sha256": kata.sha256, "modified": kata.modified or "",
                             "similar_to": "; ".join(similar)})
    return sink.getvalue()


CANDIDATE_TEXT = ("candidate", "bugs", "plants_fixed", "plants_remaining", "review", "similar_to", "flags")


class _SafeWriter(csv.DictWriter):
    """A CSV writer whose cells of candidate-derived text a spreadsheet cannot take for a formula."""

    def __init__(self, sink):
        super().__init__(sink, CSV_COLUMNS, lineterminator="\n")

    def writerow(self, row):
        return super().writerow({key: escape.csv_cell(value) if key in CANDIDATE_TEXT else value
                                 for key, value in row.items()})


def pairs_text(batch, limit=10):
    """The similar pairs, for the end of the terminal output ("" when there are none)."""
    if not batch.pairs:
        return ""
    lines = [click.style("Similar files", bold=True) + f" (similarity >= {batch.threshold:g} once names, comments "
                                                       "and layout are set aside: look, do not conclude):"]
    names = {c.path: c.name for c in batch.candidates}  # the roster's names, not where a zip was unpacked
    lines += [f"  kata {p.kata}: {escape.terminal(names.get(p.a, p.a))} ~ {escape.terminal(names.get(p.b, p.b))}  "
              f"{p.similarity:.2f}" for p in batch.pairs[:limit]]
    if len(batch.pairs) > limit:
        lines.append(f"  ... and {len(batch.pairs) - limit} more pairs: --json, --csv or --html has them all")
    return "\n".join(lines)

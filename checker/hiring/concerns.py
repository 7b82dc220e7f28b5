"""What a reviewer should look at first about a candidate: every flag, review note and refusal, ranked.

A `Concern` is one thing to look at, with its severity: tampering (a patched NumPy, a record shared or
forged, a manifest that lies, a file that links out) first, then attempts to reach beyond the kata (a
process, a file, the network, introspection: and what the sandbox refused of it), then a workspace whose
record could not be matched, then time, then similarity, then plain notes. The same text from several
katas or checks is one concern with a count. Decides nothing about the score: it orders what people read.
"""

import re
from dataclasses import dataclass

from checker.present.render import duration

TAMPERING, ESCAPE, RECORD, TIME, SIMILAR, NOTE = range(6)
LABELS = {TAMPERING: "tampering", ESCAPE: "reaching out", RECORD: "record", TIME: "time", SIMILAR: "similar",
          NOTE: "note"}
# modules and calls that reach beyond an attention kata: the file system, processes, the network, the interpreter
REACHING = {"os", "sys", "subprocess", "socket", "shutil", "glob", "pathlib", "importlib", "ctypes", "builtins",
            "inspect", "pickle", "multiprocessing", "signal", "threading", "urllib", "http", "io", "tempfile", "gc",
            "resource", "mmap", "pty", "fcntl", "posix", "_thread", "runpy", "code", "marshal", "zipimport"}
_REFUSED = re.compile(r"(PermissionError|Operation not permitted|Permission denied|BlockingIOError|"
                      r"seccomp|landlock)", re.I)


@dataclass(frozen=True)
class Concern:
    severity: int
    text: str
    count: int = 1  # how many katas or checks said it

    @property
    def label(self):
        return LABELS[self.severity]


def of_flag(flag):
    """The severity of an integrity flag grading raised (grade.py, roster.py)."""
    if flag.startswith(("SHARED RECORD", "refused ")) or "disagrees with the roster" in flag or "seal" in flag \
            or "is not the team's roster" in flag:
        return TAMPERING
    if flag.startswith(("UNMATCHED", "unrostered", "no team key")) or "matched to the roster by" in flag:
        return RECORD
    return NOTE


def of_review(reason):
    """The severity of a review reason (review.py)."""
    if reason.startswith(("patches ", "a coding cookie", "code below the page's", "scan stopped",
                          "prints what looks like the checker's own verdict")) or "bidirectional-text" in reason:
        return TAMPERING  # what the reviewer reads is not what Python runs (no honest answer stops the scan)
    words = reason.split()
    if words[0] == "imports":
        return ESCAPE if words[1].lstrip(".").split(".")[0] in REACHING or words[1].startswith(".") else NOTE
    return ESCAPE if words[0] in ("calls", "uses", "reaches", "runs", "builds", "holds", "in") else NOTE


def refusals(kata):
    """[(what the sandbox refused, how many checks)] of a kata score's check: the errors the walls raised."""
    counts = {}
    for test in kata.check.get("tests", []):
        message = test.get("message") or ""
        if test["outcome"] == "error" and _REFUSED.search(message):
            what = message.split(" raised ", 1)[-1]
            counts[what] = counts.get(what, 0) + 1
    return list(counts.items())


def of_candidate(candidate):
    """Every concern about `candidate` (a scoring.Candidate), most severe first, repeated ones folded."""
    found = [(of_flag(flag), flag) for flag in candidate.flags]
    if candidate.error:
        found.append((NOTE, f"not graded: {candidate.error}"))
    for kata in candidate.katas:
        found += [(of_review(reason), f"kata {kata.kata}: {reason}") for reason in kata.review]
        found += [(ESCAPE, f"kata {kata.kata}: the sandbox refused it: {what}" + (f" ({n} checks)" if n > 1 else ""))
                  for what, n in refusals(kata)]
    if candidate.over_time:
        found.append((TIME, f"over time: the newest kata file changed {duration(candidate.span_seconds)} after the "
                            f"pack was issued ({candidate.minutes} min given; the candidate's own clock)"))
    for pair in candidate.similar:
        other = pair.other(candidate.path)
        found.append((SIMILAR, f"kata {pair.kata} is {pair.similarity:.2f} similar to {other}"))
    folded = {}
    for severity, text in found:
        key = (severity, re.sub(r"^kata \d+: ", "", text) if severity != SIMILAR else text)
        folded.setdefault(key, []).append(text)
    concerns = [Concern(severity, texts[0] if len(texts) == 1 else f"katas {_katas(texts)}: {text}", len(texts))
                for (severity, text), texts in folded.items()]
    return sorted(concerns, key=lambda concern: concern.severity)


def _katas(texts):
    return ", ".join(re.match(r"kata (\d+)", text).group(1) if re.match(r"kata (\d+)", text) else "?"
                     for text in texts)


def headline(candidate):
    """The most severe concern but time and similarity (said apart), in a few words ("" without any)."""
    from checker.hiring.returned import ONE_DOWN, UNPACKED

    found = [concern for concern in of_candidate(candidate) if concern.severity not in (TIME, SIMILAR)
             and not concern.text.startswith((UNPACKED, ONE_DOWN))]  # where it was found: said in the row
    if not found:
        return ""
    worst, more = found[0], len(found) - 1
    label = f"{worst.label.upper()}: " if worst.severity in (TAMPERING, ESCAPE) else ""  # a record's says it
    return f"{label}{worst.text}" + (f" (+{more} more)" if more else "")

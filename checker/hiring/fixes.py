"""Kata 10's similarity: two fixes compared on what each changed that no fix needs, not on the planted file they share.

Every candidate of kata 10 is handed the clean decoder with bugs planted for their seed, and every
complete minimal fix IS the clean decoder: two of them are the same file and prove nothing. What a copy
shares and an independent fix does not is what no fix needs. For a candidate X issued the planted file S_X,
with R the clean decoder (the reference), X's own lines are
  - the lines X wrote that neither S_X nor R holds (added lines, their comments and names: a non-minimal edit;
    which clean lines an edit removed is no evidence, since any rewrite of a function removes the same),
  - the planted lines X left that the other candidate was never issued (a copy across seeds carries them).
Lines are compared as text with whitespace runs made one space; a line of under MIN_CHARS characters
(`else:`, `)`) never counts. A pair's figure is the share of the smaller side's own lines the other side has
too, when that side has at least MIN_LINES own lines (below that there is nothing to tell two fixes apart).
The work is bounded: each file is read up to LINE_CAP lines of LINE_CHARS characters, and says so.
"""

LINE_CAP = 3_000  # lines read from one file (the planted file has about 100)
LINE_CHARS = 400  # characters kept of one line
MIN_CHARS = 6  # shorter lines never count
MIN_LINES = 3  # own lines the smaller side needs for a pair to be scored


def pairs(given, stubs, reference):
    """([(a, b, figure, "candidates", lines of a, lines of b)], {name: what was cut}) for every pair of `given`
    ({name: bytes}); `stubs` ({name: text}) is the planted file each was issued, `reference` the clean one."""
    clean = set(_lines(reference)[0])
    read, said = {}, {}
    for name, source in given.items():
        rows, cut = _lines(source)
        if cut:
            said[name] = f"only its first {LINE_CAP} lines compared (kata 10 compares what each fix changed)"
        stub = set(_lines(stubs[name])[0]) - {""}
        present = set(rows) - {""}
        added = present - stub - clean
        planted = present & (stub - clean)
        read[name] = (rows, stub, added, planted)
    found = []
    names = sorted(read)
    for position, a in enumerate(names):
        for b in names[position + 1:]:
            pair = _pair(read[a], read[b])
            if pair:
                found.append((a, b, *pair))
    return found, said


def _pair(first, second):
    rows_a, stub_a, own_a, planted_a = first
    rows_b, stub_b, own_b, planted_b = second
    own_a = own_a | (planted_a - stub_b)  # a's plants the other was never issued: a copy carries them
    own_b = own_b | (planted_b - stub_a)
    if min(len(own_a), len(own_b)) < MIN_LINES:
        return None
    shared = own_a & own_b
    figure = round(len(shared) / min(len(own_a), len(own_b)), 3)
    return figure, "candidates", _where(rows_a, shared), _where(rows_b, shared)


def _lines(source):
    """([normalised line, ...] of the first LINE_CAP rows, with "" for a line that never counts), cut?"""
    text = source.decode("utf-8", errors="replace") if isinstance(source, bytes) else source
    rows = text.splitlines()
    kept = [" ".join(row[:LINE_CHARS].split()) for row in rows[:LINE_CAP]]
    return [row if len(row) >= MIN_CHARS else "" for row in kept], len(rows) > LINE_CAP


def _where(rows, shared):
    """The merged (first, last) 1-based line ranges of `rows` whose text is in `shared`."""
    merged = []
    for number, row in enumerate(rows, start=1):
        if row and row in shared:
            if merged and merged[-1][1] == number - 1:
                merged[-1] = (merged[-1][0], number)
            else:
                merged.append((number, number))
    return tuple(merged)

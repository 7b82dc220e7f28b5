"""Pairs of kata files that share most of their own code once a copier's mechanical edits are undone.

Each file becomes a canonical token stream (canonical.py: names, layout, comments, docstrings, dead
assignments, single-use temporaries, the order of independent statements and NumPy's equivalent
spellings set aside). Every run of K tokens is hashed; a k-gram that is also in the stub the candidate
was issued (its signatures, docstrings, helper code; kata 10: the planted file of the candidate's seed) is
boilerplate and never counts. A pair's figure is containment: the share of the shorter file's own tokens
that lie in k-grams the other file has too (1.0: all of it). Candidates are indexed by winnowed
fingerprints (Schleimer, Wilkerson and Aiken 2003: the smallest hash of every WINDOW k-grams), so the cost
is linear in the files' sizes (canonical.TOKEN_CAP bounds each) and only pairs that share fingerprints are
scored. Each candidate is compared with every other and with the kata's reference solution, which the
trusted parent loads itself (`preload`), never from a workspace; a planted kata (10) is not compared
with its reference, which every complete fix converges on: kata 10's files are compared on what each fix
changed instead (fixes.py). A pair is flagged when its figure passes its kata's line, set by how close the
kata's honest, independent answers are to one another (similarity_honest.py); the closest pairs of each kata
are kept even when none is flagged. A flag is a pointer for a human, with the matching lines on both sides;
never a verdict.
"""

import zlib
from dataclasses import dataclass, field
from functools import lru_cache

from checker.engine import catalog
from checker.hiring import canonical, fixes, similarity_honest

THRESHOLD = 0.9  # the old fixed line, kept for the report's wording only: each kata's own line decides a flag
CLOSEST = 3  # pairs kept per kata, flagged or not: who is nearest to whom
MAX_SCORED = 2_000  # pairs scored per kata (those sharing most fingerprints first); the rest are said, not scored
MIN_TOKENS = 40  # own tokens (not the stub's) below which a file is not compared: a one-line answer coincides
MIN_FIX_TOKENS = 10  # the same for a planted kata (10), whose own tokens are the fixes: 15-60 for four
K = 10  # tokens per k-gram
WINDOW = 4  # winnowing window: any shared run of K + WINDOW - 1 tokens shares a fingerprint
CANDIDATES, REFERENCE = "candidates", "reference"
_MOD, _BASE = (1 << 61) - 1, 1_000_003


@dataclass(frozen=True)
class Pair:
    kata: str
    a: str  # a candidate's path
    b: str  # the other candidate's path, or "reference solution" (kind REFERENCE)
    similarity: float  # 0..1: the share of the shorter file's own tokens that match
    kind: str = CANDIDATES  # CANDIDATES, or REFERENCE: a's file matches the kata's reference solution
    lines_a: tuple = ()  # ((first, last), ...): the lines of a's file that match, 1-based
    lines_b: tuple = ()  # the same in b's file (the reference's, for REFERENCE)
    line: float = 0.0  # the kata's flag line (similarity_honest.Honest.line)
    closer_than: float = 0.0  # the share of the kata's honest pairs this pair is closer than (0..1)
    said: str = ""  # "closer than 100.0 % of kata 05's 45 honest pairs (the closest 0.81)"

    @property
    def flagged(self):
        return self.similarity >= self.line

    def other(self, path):
        return self.b if self.a == path else self.a

    def holds(self, path):
        return path == self.a or (self.kind == CANDIDATES and path == self.b)


@dataclass
class Comparison:
    pairs: list  # the flagged Pairs, most similar first
    notes: dict = field(default_factory=dict)  # candidate path -> ["kata 03: ..."]: what similarity set aside
    closest: dict = field(default_factory=dict)  # kata id -> its CLOSEST most similar Pairs, flagged or not


@dataclass(frozen=True)
class _File:
    stream: object  # canonical.Stream
    hashes: tuple  # the hash of the k-gram starting at each position
    own: frozenset  # hashes not in the base (the stub issued)
    fingerprints: frozenset  # the winnowed subset of `own` (all of it when that is tiny): the index
    boilerplate: frozenset  # positions of tokens covered by a k-gram of the base
    size: int  # own tokens: the others


def compare(files, seeds=None, threshold=None, references=True):
    """The flagged pairs among `files` ({candidate: {kata id: bytes or None}}) and between each file and its
    kata's reference, and each kata's closest pairs; `seeds` ({candidate: seed}) says which stub each was
    issued. A pair is flagged at its kata's honest line, or at `threshold` when one is given."""
    seeds = seeds or {}
    every, notes, closest = [], {}, {}
    for kata_id in sorted({kata for found in files.values() for kata in found}):
        honest = similarity_honest.of(kata_id)
        line = honest.line if threshold is None else threshold
        given = {name: bytes(files[name][kata_id]) for name in sorted(files) if files[name].get(kata_id) is not None}
        if _planted(kata_id):
            found, said = fixes.pairs(given, {name: issued_stub(kata_id, _seed(kata_id, seeds.get(name)))
                                              for name in given}, reference_source(kata_id))
            notes_of = {}
        else:
            found, said, notes_of = _kata_pairs(kata_id, given, references)
        for name, note in notes_of.items():
            notes.setdefault(name, []).append(f"kata {kata_id}: similarity: {note}")
        for name in said:
            notes.setdefault(name, []).append(f"kata {kata_id}: similarity: {said[name]}")
        kata_pairs = sorted((Pair(kata_id, a, b, figure, kind, lines_a, lines_b, line, honest.closer_than(figure),
                                  honest.said(figure)) for a, b, figure, kind, lines_a, lines_b in found),
                            key=_rank)
        closest[kata_id] = kata_pairs[:CLOSEST]
        every += kata_pairs
    return Comparison(sorted((pair for pair in every if pair.flagged), key=_rank), notes, closest)


def _rank(pair):
    return -pair.similarity, pair.kata, pair.kind, pair.a, pair.b


def _kata_pairs(kata_id, given, references):
    """([(a, b, figure, kind, lines a, lines b)], {name: what was not scored}, {name: what was set aside})."""
    read, notes, said = {}, {}, {}
    for name, source in given.items():
        found = _file(source, kata_id, None)
        if found.stream.note:
            notes[name] = found.stream.note
        if found.size >= least(kata_id):
            read[name] = found
    pairs, said = _candidate_pairs(read)
    if references and read:
        reference = _file(reference_source(kata_id), kata_id, None)
        if reference.size >= least(kata_id):
            pairs += [(name, "reference solution", *_scored(found, reference), REFERENCE)
                      for name, found in read.items()]
    return [(a, b, figure, kind, lines_a, lines_b) for a, b, figure, lines_a, lines_b, kind in pairs], said, notes


def _candidate_pairs(read):
    """The scored pairs of candidates that share a fingerprint: at most MAX_SCORED, those sharing most first."""
    index = {}
    for name, found in read.items():
        for fingerprint in found.fingerprints:
            index.setdefault(fingerprint, []).append(name)
    shared = {}
    for holders in index.values():
        for position, a in enumerate(holders):
            for b in holders[position + 1:]:
                shared[a, b] = shared.get((a, b), 0) + 1
    ranked = sorted(shared, key=lambda pair: (-shared[pair] / min(len(read[n].fingerprints) for n in pair), pair))
    said = {}
    for a, b in ranked[MAX_SCORED:]:
        for name in (a, b):
            said[name] = f"only the {MAX_SCORED} pairs of this kata sharing most were scored"
    return [(a, b, *_scored(read[a], read[b]), CANDIDATES) for a, b in ranked[:MAX_SCORED]], said


def _scored(a, b):
    figure, lines_a, lines_b = score(a, b)
    return figure, lines_a, lines_b


def score(a, b):
    """(containment, matching lines of a, of b) of two files: the matched share of the one with fewer own tokens."""
    if not a.size or not b.size:
        return 0.0, (), ()
    shared = a.own & b.own
    matched_a, matched_b = _matched(a, shared), _matched(b, shared)
    figure = len(matched_a) / a.size if a.size <= b.size else len(matched_b) / b.size
    return round(min(figure, 1.0), 3), a.stream.lines(matched_a), b.stream.lines(matched_b)


def _matched(found, shared):
    """The positions of `found`'s own tokens covered by a k-gram in `shared`."""
    return _covered(found.hashes, shared) - found.boilerplate


def _covered(hashes, wanted):
    covered = set()
    for start, value in enumerate(hashes):
        if value in wanted:
            covered.update(range(start, start + K))
    return covered


def similarity(a, b, kata_id):
    """Two sources' figure (0..1) for `kata_id`, both issued its default stub, or None when either has too
    few tokens of its own to be compared: for tests and benchmarks."""
    if _planted(kata_id):
        stub = issued_stub(kata_id, None)
        found, _ = fixes.pairs({"a": bytes(a), "b": bytes(b)}, {"a": stub, "b": stub}, reference_source(kata_id))
        return found[0][2] if found else None
    first, second = _file(bytes(a), kata_id, None), _file(bytes(b), kata_id, None)
    return score(first, second)[0] if min(first.size, second.size) >= least(kata_id) else None


def least(kata_id):
    """The own tokens a file of `kata_id` needs to be compared."""
    return MIN_FIX_TOKENS if _planted(kata_id) else MIN_TOKENS


def own_tokens(source, kata_id, seed=None):
    """How many of the canonical tokens of `source` are its own, not the stub's."""
    return _file(bytes(source), kata_id, _seed(kata_id, seed)).size


def read_note(source):
    """(what similarity set aside of `source`, source tokens read): the work one file costs."""
    found = _file(bytes(source), "03", None).stream
    return found.note, found.read


# --- one file: tokens, k-grams, fingerprints ----------------------------------------------------------

@lru_cache(maxsize=512)  # each at most canonical.TOKEN_CAP tokens
def _file(source, kata_id, seed):
    stream = canonical.stream(source)
    hashes = _kgrams(stream.tokens)
    base = _base(kata_id, seed)
    boilerplate = frozenset(_covered(hashes, base))
    own = frozenset(hashes) - base
    fingerprints = frozenset(_winnow(hashes)) & own
    return _File(stream, hashes, own, fingerprints if len(fingerprints) >= 4 else own, boilerplate,
                 len(stream.tokens) - len(boilerplate))  # a few own k-grams (a fix) are all indexed


def _kgrams(tokens):
    codes = [zlib.crc32(token.encode("utf-8", "replace")) for token in tokens]
    if len(codes) < K:
        return ()
    top = pow(_BASE, K - 1, _MOD)
    value = 0
    for code in codes[:K]:
        value = (value * _BASE + code) % _MOD
    hashes = [value]
    for position in range(K, len(codes)):
        value = ((value - codes[position - K] * top) * _BASE + codes[position]) % _MOD
        hashes.append(value)
    return tuple(hashes)


def _winnow(hashes):
    """The smallest hash of every WINDOW consecutive k-grams (the rightmost on ties)."""
    chosen = set()
    for start in range(max(len(hashes) - WINDOW + 1, 1 if hashes else 0)):
        window = hashes[start:start + WINDOW]
        chosen.add(min(window))
    return chosen


def _seed(kata_id, seed):
    """The seed a kata's stub depends on (None for a kata whose stub is the same for everyone)."""
    return seed if _planted(kata_id) else None


@lru_cache(maxsize=None)
def _base(kata_id, seed):
    """The k-gram hashes of the stub as issued: boilerplate."""
    return frozenset(_kgrams(canonical.stream(issued_stub(kata_id, seed)).tokens))


@lru_cache(maxsize=None)
def issued_stub(kata_id, seed=None):
    """The stub a pack of `seed` hands out for the kata (kata 10: its planted file; None: the default seed's)."""
    from checker.engine.runner import DEFAULT_SEED
    from checker.engine.workspace import pristine_stub

    kata = catalog.find(kata_id)
    public = kata.part("public")
    if hasattr(public, "stub"):
        return public.stub(DEFAULT_SEED if seed is None else seed)
    return pristine_stub(kata) or kata.stub_path.read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def reference_source(kata_id):
    """The kata's reference solution, as this trusted process first read it (see `preload`)."""
    return catalog.find(kata_id).solution_path.read_bytes()


def preload(katas):
    """Read the references and stubs of `katas` now, before any candidate code runs: never again afterwards."""
    for kata in katas:
        reference_source(kata.id)
        issued_stub(kata.id)


@lru_cache(maxsize=None)
def _planted(kata_id):
    return bool(getattr(catalog.find(kata_id).hidden(), "STUB_PLANTED", False))

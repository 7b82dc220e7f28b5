"""Similarity (checker/hiring/similarity.py): mechanical copies are flagged, independent honest answers are not,
the reference and kata 10 are compared, the stub never counts, and no file can crash or stall the pass.

The copies are tests/copies.py's, made from the project's correct variants and references and run on the
kata's public checks beside their originals; a seeded sample of SAMPLE files per class keeps the test to a
couple of seconds (bench/similarity_figures.py measures every file, with more seeds).
"""

import ast
import itertools
import random
from functools import lru_cache

import pytest

import copies
from checker.engine import catalog
from checker.hiring import canonical, similarity
from checker.hiring.similarity import REFERENCE, THRESHOLD, compare

SAMPLE = 20  # copies per class
KATAS = catalog.all_katas()


@lru_cache(maxsize=None)
def honest(kata):
    """[(path, bytes)] of the kata's reference and correct variants."""
    return [(path, path.read_bytes()) for path in [kata.solution_path] + kata.files("correct")]


@lru_cache(maxsize=None)
def contract(kata):
    """The names the kata's stub defines: a copy keeps them (the checks call them)."""
    stub = ast.parse(similarity.issued_stub(kata.id))
    return frozenset(node.name for node in ast.walk(stub) if isinstance(node, (ast.FunctionDef, ast.ClassDef)))


@lru_cache(maxsize=None)
def computed(kata, path):
    return copies.outputs(path.read_text(), kata)


def test_mechanical_copies_are_flagged_and_honest_answers_are_not():
    comparable = [(kata, path, source) for kata in KATAS for path, source in honest(kata)
                  if similarity.own_tokens(source, kata.id) >= similarity.least(kata.id)]
    table = {}
    for number, kind in enumerate(copies.CLASSES):
        flagged = 0
        for kata, path, source in random.Random(f"sample:{kind}").sample(comparable, SAMPLE):
            made = copies.make(source.decode(), kind, number, contract(kata))
            assert made.encode() != source
            assert copies.same(copies.outputs(made, kata), computed(kata, path)), f"{kind} copy of {path.name}"
            figure = similarity.similarity(source, made.encode(), kata.id)
            flagged += figure is not None and figure >= THRESHOLD
        table[kind] = flagged
    pairs = honest_flagged = 0
    for kata in KATAS:
        for (_, a), (_, b) in itertools.combinations(honest(kata), 2):
            figure = similarity.similarity(a, b, kata.id)
            pairs += figure is not None
            honest_flagged += figure is not None and figure >= THRESHOLD
    figures = (", ".join(f"{kind} {hits}/{SAMPLE}" for kind, hits in table.items())
               + f"; honest pairs flagged {honest_flagged}/{pairs} (threshold {THRESHOLD})")
    assert all(hits >= 0.9 * SAMPLE for hits in table.values()), figures
    assert pairs > 350 and honest_flagged <= 0.005 * pairs, figures


@pytest.mark.parametrize("kata", [k for k in KATAS if k.id != "10"], ids=str)
def test_the_reference_handed_in_is_flagged_beside_an_honest_answer(kata):
    reference = kata.solution_path.read_bytes()
    variant = next(source for path, source in honest(kata)[1:]
                   if similarity.similarity(source, reference, kata.id) is not None)
    found = compare({"ada": {kata.id: reference}, "bob": {kata.id: variant}})
    matches = [pair for pair in found.pairs if pair.kind == REFERENCE]
    assert [(pair.a, pair.similarity) for pair in matches] == [("ada", 1.0)]
    assert matches[0].lines_a == matches[0].lines_b and matches[0].lines_a  # the same lines, on both sides
    assert matches[0].holds("ada") and not matches[0].holds("reference solution")


def test_identical_kata_10_fixes_are_flagged_and_the_planted_stub_never_counts():
    planted = {seed: similarity.issued_stub("10", seed).encode() for seed in (3, 7)}
    fixed = catalog.find("10").solution_path.read_bytes()  # every planted bug fixed as the clean file has it
    near = fixed.replace(b"weights = softmax(scores)", b"attn = softmax(scores)").replace(
        b"weights @ v_all", b"attn @ v_all")
    assert near != fixed
    files = {"ada": {"10": fixed}, "bob": {"10": fixed}, "cy": {"10": near},
             "dee": {"10": planted[7]}, "eve": {"10": planted[7]}, "fay": {"10": planted[3]}}
    found = compare(files, {name: 7 for name in files} | {"fay": 3})
    pairs = {(pair.a, pair.b): pair.similarity for pair in found.pairs}
    assert pairs == {("ada", "bob"): 1.0, ("ada", "cy"): 1.0, ("bob", "cy"): 1.0}  # the untouched stubs: nothing
    assert all(pair.kind != REFERENCE for pair in found.pairs)  # a complete fix IS the reference: not compared


@pytest.mark.parametrize("kata", KATAS, ids=str)
def test_the_stub_alone_never_matches(kata):
    stub = similarity.issued_stub(kata.id).encode()
    assert similarity.own_tokens(stub, kata.id) == 0
    assert compare({"ada": {kata.id: stub}, "bob": {kata.id: stub}}).pairs == []


def test_deep_huge_and_broken_files_are_notes_never_a_crash():
    reference = catalog.find("03").solution_path.read_text()
    chain = "a" + ".b" * 2000
    hostile = {
        "chain": reference + f"\n\ndef unused():\n    if False:\n        x = {chain}\n    return 1\n",
        "deeper": reference + "\n\nx = " + "a" + ".b" * 6000 + "\n",
        "sum": reference + "\n\nx = 1" + " + 1" * 50_000 + "\n",
        "nested": reference + "\n\nx = " + "-" * 300 + "1\n",
        "huge": reference + "\n\ny = [\n" + "    1, 2, 3,\n" * 80_000 + "]\n",  # 1 MB: read up to the cap
        "binary": b"\x00\xff\xfe" * 1000,
    }
    files = {name: {"03": text.encode() if isinstance(text, str) else text} for name, text in hostile.items()}
    found = compare(files)
    for name in hostile:
        note, read = similarity.read_note(files[name]["03"])
        assert read <= canonical.TOKEN_CAP, name  # the work is bounded by the cap, whatever the file
        if name != "binary":
            assert any(pair.a == name and pair.kind == REFERENCE for pair in found.pairs), name  # still compared
            assert note and found.notes[name], name  # and what was set aside is said
    assert "first 30000 tokens" in similarity.read_note(files["huge"]["03"])[0]
    assert similarity.read_note(files["chain"]["03"])[0].startswith("1 line too long or deep")

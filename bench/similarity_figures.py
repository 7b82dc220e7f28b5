"""Similarity's figures: copies flagged per class, honest pairs flagged, each kata's honest distribution, cost.

    python bench/similarity_figures.py [--seeds 1] [--cost] [--write]

The mechanical copies are tests/copies.py's, made from every honest file (each checked to compute what its
original computes); the hand copies are tests/hand_copies/ (written by hand, the way a candidate copies in
fifteen minutes; each names its original and its classes on its first line). A copy is flagged when it
reaches its kata's line (checker/hiring/similarity_honest.py). The honest pairs are every pair of a kata's
honest files, each judged against the line its kata would have WITHOUT the file (leave one file out): a
pair is counted flagged if leaving out either of its files puts it at or above the line. --write derives
checker/hiring/similarity_honest.yaml. With --cost it also times large files against tokenizing one.
"""

import argparse
import io
import itertools
import random
import sys
import time
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import copies  # noqa: E402 - tests/copies.py
from checker.engine import catalog  # noqa: E402
from checker.hiring import similarity, similarity_honest  # noqa: E402

HAND = ROOT / "tests" / "hand_copies"


def honest_files(kata):
    return similarity_honest.honest_files(kata)


def hand_copies():
    """[(copy path, original path, kata, (class, ...))] of tests/hand_copies/."""
    found = []
    for path in sorted(HAND.glob("*.py")):
        head = path.read_text(encoding="utf-8").splitlines()[0]
        original, classes = head.removeprefix("# hand copy of ").split(": ")
        found.append((path, ROOT / original, catalog.find(path.name[:2]), tuple(classes.split(", "))))
    return found


def hand_table(check=True):
    """{class: [flagged, total]} and [(copy, figure, line)] of the hand copies."""
    table, rows = {}, []
    for path, original, kata, classes in hand_copies():
        if check:
            assert copies.same(copies.outputs(path.read_text(), kata), copies.outputs(original.read_text(), kata))
        figure = similarity.similarity(original.read_bytes(), path.read_bytes(), kata.id)
        line = similarity_honest.of(kata.id).line
        rows.append((path.name, figure, line))
        for kind in classes:
            table.setdefault(kind, [0, 0])
            table[kind][0] += figure is not None and figure >= line
            table[kind][1] += 1
    return table, rows


def left_out_line(figures_without):
    closest = max(figures_without, default=0.0)
    return round(min(max(closest + similarity_honest.MARGIN, similarity_honest.FLOOR), similarity_honest.CEILING), 3)


def keep_names(kata):
    import ast

    stub = ast.parse(similarity.issued_stub(kata.id))
    return {node.name for node in ast.walk(stub) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def figures(seeds=1, check=True):
    """({class: (flagged, total)}, (honest flagged, honest compared, honest pairs), the flagged honest pairs,
    (flagged, compared) of each "all" copy against the kata's other honest files)."""
    table = {kind: [0, 0] for kind in copies.CLASSES}
    honest, flagged_honest, crossed = [0, 0, 0], [], [0, 0]
    for kata in catalog.all_katas():
        sources = {path: path.read_bytes() for path in honest_files(kata) if path.parent.name != "torch"}
        line = similarity_honest.of(kata.id).line
        keep = keep_names(kata)
        for path, source in sources.items():
            if similarity.own_tokens(source, kata.id) < similarity.least(kata.id):
                continue
            want = copies.outputs(source.decode(), kata) if check else None
            for kind, seed in itertools.product(copies.CLASSES, range(seeds)):
                made = copies.make(source.decode(), kind, seed, keep)
                if check:
                    assert copies.same(copies.outputs(made, kata), want), f"{path} {kind} {seed}"
                figure = similarity.similarity(source, made.encode(), kata.id)
                table[kind][0] += figure is not None and figure >= line
                table[kind][1] += 1
                for other, other_source in sources.items() if kind == "all" and seed == 0 else ():
                    figure = similarity.similarity(made.encode(), other_source, kata.id) if other != path else None
                    crossed[0] += figure is not None and figure >= line
                    crossed[1] += figure is not None
        every = {path: path.read_bytes() for path in honest_files(kata)}
        scored = {(a, b): similarity.similarity(sa, sb, kata.id)
                  for (a, sa), (b, sb) in itertools.combinations(every.items(), 2)}
        for (a, b), figure in scored.items():
            honest[2] += 1
            if figure is None:
                continue
            honest[1] += 1
            lines = [left_out_line([f for pair, f in scored.items() if out not in pair and f is not None])
                     for out in (a, b)]
            if figure >= min(lines):
                honest[0] += 1
                flagged_honest.append((figure, a.relative_to(ROOT), b.relative_to(ROOT)))
    return table, honest, sorted(flagged_honest, reverse=True), crossed


def shuffled_file(tokens, seed):
    """A synthetic answer of about `tokens` tokens: many small functions of independent statements."""
    rng = random.Random(seed)
    functions = []
    for number in range(tokens // 60):
        body = [f"    v{i} = np.sum(x * {rng.randint(2, 9)}, axis={rng.choice([0, -1])}) + {i}" for i in range(4)]
        rng.shuffle(body)
        functions.append(f"def f{number}(x):\n" + "\n".join(body) + "\n    return v0 + v1 + v2 + v3\n")
    rng.shuffle(functions)
    return ("import numpy as np\n\n" + "\n".join(functions)).encode()


def dead_functions(count=2_500):
    """The reference of kata 03 with `count` dead functions after it: a file built to make similarity slow."""
    reference = catalog.find("03").solution_path.read_text()
    return (reference + "".join(f"\ndef unused_{i}(x):\n    y = x * {i} + 1\n    return y - x\n"
                                for i in range(count))).encode()


def cost():
    longest = max((similarity.read_note(path.read_bytes())[1], str(path.relative_to(ROOT)))
                  for kata in catalog.all_katas() for path in honest_files(kata))
    print(f"longest honest file: {longest[0]} tokens ({longest[1]}); the cap: {similarity.canonical.TOKEN_CAP}")
    reference = catalog.find("03").solution_path.read_bytes()
    timed = {}
    for label, source in (("an honest answer", reference), ("2,500 dead functions", dead_functions())):
        similarity._file.cache_clear()
        start = time.process_time()
        result = similarity.compare({"a": {"03": source}, "b": {"03": reference}})
        timed[label] = time.process_time() - start
        print(f"{label}: {len(source):,} bytes, {similarity.read_note(source)[1]} tokens read, "
              f"{timed[label]:.3f} s CPU, notes {result.notes}")
    print(f"ratio: {timed['2,500 dead functions'] / timed['an honest answer']:.0f}x an honest answer's pair")
    twenty = [shuffled_file(20_000, seed) for seed in (1, 2)]
    big = [(b"x = 1\n" * 180_000)[:2**20], (b"y = a.b + 2\n" * 100_000)[:2**20]]
    start = time.process_time()
    list(tokenize.generate_tokens(io.StringIO(twenty[0].decode()).readline))
    unit = time.process_time() - start
    for label, (a, b) in (("20k-token shuffled pair", twenty), ("1 MB pair", big)):
        start = time.process_time()
        result = similarity.compare({"a": {"03": a}, "b": {"03": b}}, references=False)
        seconds = time.process_time() - start
        read = [similarity.read_note(source)[1] for source in (a, b)]
        print(f"{label}: {seconds:.2f} s CPU ({seconds / unit:.1f}x tokenizing 20k tokens), "
              f"{read} tokens read, figure "
              f"{result.pairs[0].similarity if result.pairs else '-'}, notes {result.notes}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1, help="copies of each file per class")
    parser.add_argument("--cost", action="store_true", help="also time large files")
    parser.add_argument("--no-check", action="store_true", help="do not run the copies")
    parser.add_argument("--write", action="store_true", help="write checker/hiring/similarity_honest.yaml first")
    options = parser.parse_args()
    if options.write:
        similarity_honest.DATA.write_text(similarity_honest.written(catalog.all_katas(), similarity.similarity))
        similarity_honest.table.cache_clear()
        print(f"wrote {similarity_honest.DATA.relative_to(ROOT)}")
    start = time.perf_counter()
    table, honest, flagged, crossed = figures(options.seeds, not options.no_check)
    hand, rows = hand_table(not options.no_check)
    print(f"per-kata lines (margin {similarity_honest.MARGIN}, floor {similarity_honest.FLOOR}, ceiling "
          f"{similarity_honest.CEILING}), k {similarity.K}, window {similarity.WINDOW}, "
          f"min tokens {similarity.MIN_TOKENS} ({time.perf_counter() - start:.1f} s)")
    print("| kata | honest pairs | median | p99 | max | line |\n|---|---:|---:|---:|---:|---:|")
    for kata_id, honest_of in sorted(similarity_honest.table().items()):
        print(f"| {kata_id} | {len(honest_of.figures)} | {honest_of.quantile(0.5):.3f} | "
              f"{honest_of.quantile(0.99):.3f} | {honest_of.figures[-1]:.3f} | {honest_of.line:.3f} |")
    print("| copy made by | flagged |\n|---|---|")
    for kind, (hits, total) in table.items():
        print(f"| mechanical: {kind} | {hits} / {total} ({100 * hits / total:.0f}%) |")
    for kind, (hits, total) in hand.items():
        print(f"| by hand: {kind} | {hits} / {total} ({100 * hits / total:.0f}%) |")
    for name, figure, line in rows:
        print(f"  {name}: {figure} (line {line})")
    print(f"honest pairs flagged (each file left out of its kata's line): {honest[0]} / {honest[1]} compared "
          f"({honest[2]} pairs in all)")
    for figure, a, b in flagged[:10]:
        print(f"  {figure:.3f} {a} ~ {b}")
    print(f"a copy (all three edits) beside the kata's other honest files: {crossed[0]} / {crossed[1]} flagged")
    if options.cost:
        cost()


if __name__ == "__main__":
    main()

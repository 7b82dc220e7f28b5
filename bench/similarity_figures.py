"""Similarity's figures: mechanical copies flagged per class, honest pairs flagged, and its cost on large files.

    python bench/similarity_figures.py [--seeds 1] [--cost]

The copies are tests/copies.py's, made from every correct variant and reference solution (each checked to
compute what its original computes); the honest pairs are every pair of those files within a kata. With
--cost it also times a pair of shuffled 20k-token files and a pair of 1 MB files, against the time to
tokenize one 20k-token file (a ratio: the machine is shared).
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
from checker.hiring import similarity  # noqa: E402


def honest_files(kata):
    return [kata.solution_path] + kata.files("correct")


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
        sources = {path: path.read_bytes() for path in honest_files(kata)}
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
                table[kind][0] += figure is not None and figure >= similarity.THRESHOLD
                table[kind][1] += 1
                for other, other_source in sources.items() if kind == "all" and seed == 0 else ():
                    figure = similarity.similarity(made.encode(), other_source, kata.id) if other != path else None
                    crossed[0] += figure is not None and figure >= similarity.THRESHOLD
                    crossed[1] += figure is not None
        for (a, sa), (b, sb) in itertools.combinations(sources.items(), 2):
            honest[2] += 1
            figure = similarity.similarity(sa, sb, kata.id)
            if figure is None:
                continue
            honest[1] += 1
            if figure >= similarity.THRESHOLD:
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


def cost():
    twenty = [shuffled_file(20_000, seed) for seed in (1, 2)]
    big = [(b"x = 1\n" * 180_000)[:2**20], (b"y = a.b + 2\n" * 100_000)[:2**20]]
    start = time.perf_counter()
    list(tokenize.generate_tokens(io.StringIO(twenty[0].decode()).readline))
    unit = time.perf_counter() - start
    for label, (a, b) in (("20k-token shuffled pair", twenty), ("1 MB pair", big)):
        start = time.perf_counter()
        result = similarity.compare({"a": {"03": a}, "b": {"03": b}}, references=False)
        seconds = time.perf_counter() - start
        read = [similarity.read_note(source)[1] for source in (a, b)]
        print(f"{label}: {seconds:.2f} s ({seconds / unit:.1f}x tokenizing 20k tokens), "
              f"{read} tokens read, figure "
              f"{result.pairs[0].similarity if result.pairs else '-'}, notes {result.notes}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1, help="copies of each file per class")
    parser.add_argument("--cost", action="store_true", help="also time large files")
    parser.add_argument("--no-check", action="store_true", help="do not run the copies")
    options = parser.parse_args()
    start = time.perf_counter()
    table, honest, flagged, crossed = figures(options.seeds, not options.no_check)
    print(f"threshold {similarity.THRESHOLD}, k {similarity.K}, window {similarity.WINDOW}, "
          f"min tokens {similarity.MIN_TOKENS} ({time.perf_counter() - start:.1f} s)")
    print("| copy made by | flagged |\n|---|---|")
    for kind, (hits, total) in table.items():
        print(f"| {kind} | {hits} / {total} ({100 * hits / total:.0f}%) |")
    print(f"honest pairs flagged: {honest[0]} / {honest[1]} compared ({honest[2]} pairs in all)")
    for figure, a, b in flagged[:10]:
        print(f"  {figure:.3f} {a} ~ {b}")
    print(f"a copy (all three edits) beside the kata's other honest files: {crossed[0]} / {crossed[1]} flagged")
    if options.cost:
        cost()


if __name__ == "__main__":
    main()

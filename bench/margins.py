"""How far each kernel-measured figure of katas 05 and 08 sits from its line: figure / line, per file.

An honest file must sit well under 1, a bug file the check is for well over it. Sizing a measured check
down (a cheaper check) moves both: this table is what says it still separates.

    python bench/margins.py [--seed 2017]

Rows: the reference, each correct/ file, each torch/ correct file, and the zoo files the measured checks
are for (recompute-every-step*, materializes-scores*). Columns: kata 05's decode memory (the peak of one
step, against half an n x n table of bools) and its decode CPU growth (against CPU_GROWTH); kata 08's peak
(against TABLE_SHARE of an (n_q, n_k) table of bools). "-" where the file never reached the measured call.
"""

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from checker.engine import catalog  # noqa: E402
from checker.engine.runner import DEFAULT_SEED, check  # noqa: E402
from checker.sandbox import Sandbox, warm  # noqa: E402

FIGURES = []  # (function name, figures) of every measured call of the current check


def _recording(measure):
    def wrapper(self, name, *args, **kwargs):
        result, figures = measure(self, name, *args, **kwargs)
        FIGURES.append((name, figures))
        return result, figures

    return wrapper


def files(kata, bugs):
    honest = [kata.solution_path] + kata.files("correct")
    torch = [path for path in sorted((kata.folder / "torch").glob("correct*.py"))]
    zoo = [path for path in kata.files("zoo") if path.stem.split("--")[0] in bugs]
    return honest + torch + zoo


def kv_cache_margins(kata, figures):
    """(peak / half a table, CPU growth / CPU_GROWTH) of one check of kata 05."""
    tests = kata.hidden()
    steps = [f for name, f in figures if name == "cached_attention"]
    memory = steps[0]["peak_bytes"] / ((tests.TABLE_POSITION + 1) ** 2 / 2) if steps else None
    cpu = None
    if len(steps) >= 7:  # the memory step, then three steps at each of COST_POSITIONS
        small = min(f["cpu_seconds"] for f in steps[1:4])
        large = min(f["cpu_seconds"] for f in steps[4:7])
        cpu = large / max(small, 1e-6) / tests.CPU_GROWTH
    return memory, cpu


def flash_margins(kata, figures):
    """(peak / the line,) of one check of kata 08: the most memory after every call of the measured test."""
    tests = kata.hidden()
    peaks = [f["peak_bytes"] for name, f in figures if name == "flash_attention"]
    line = tests.TABLE_SHARE * tests.MEMORY_QUERIES * tests.MEMORY_KEYS
    return (max(peaks) / line if peaks else None,)


KATAS = {  # kata -> (the bugs its measured checks are for, the columns, how to read them)
    "kv-cache": ({"recompute-every-step"}, ("decode peak / line", "CPU growth / line"), kv_cache_margins),
    "flash": ({"materializes-scores"}, ("peak / line",), flash_margins),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    seed = parser.parse_args().seed
    Sandbox.measure = _recording(Sandbox.measure)
    warm.enable()
    for slug, (bugs, columns, margins) in KATAS.items():
        kata = catalog.find(slug)
        print(f"kata {kata.id} {slug}: " + " | ".join(columns))
        for path in files(kata, bugs):
            FIGURES.clear()
            result = check(kata, path, seed=seed)
            cells = "  ".join("     -" if m is None else f"{m:6.2f}" for m in margins(kata, FIGURES))
            name = "reference" if path == kata.solution_path else f"{path.parent.name}/{path.stem}"
            print(f"  {cells}  {result.status.value:11s} {name}")


if __name__ == "__main__":
    main()

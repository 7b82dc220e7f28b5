"""How long `kata check 01` takes, as a ratio to Python importing the project's dependencies.

Both are timed in the same run, as whole processes, so the ratio holds on any machine:

    python bench/check_speed.py [--runs 15]

The baseline is `python -c "import numpy, pytest, click, yaml"`; the target is a ratio of 1.5 or less.
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def median_seconds(commands, runs):
    """The median wall time of each command, the commands taking turns so that a busy moment of the
    machine falls on all of them alike."""
    times = {label: [] for label in commands}
    for _ in range(runs):
        for label, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[label].append(time.perf_counter() - start)
    return {label: statistics.median(seconds) for label, seconds in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    beside = Path(sys.executable).with_name("kata")  # this environment's own, when its bin/ is not on PATH
    kata = str(beside) if beside.exists() else shutil.which("kata")
    kata = kata or sys.exit("the `kata` command is not installed: pip install -e .")
    commands = {
        "baseline: python -c 'import numpy, pytest, click, yaml'":
            [sys.executable, "-c", "import numpy, pytest, click, yaml"],
        "kata check 01 (the stub: not started)": [kata, "check", "01"],
        "kata check 01 --file solutions/01_scores.py (every check runs)":
            [kata, "check", "01", "--file", "solutions/01_scores.py"],
    }
    for path in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.py")):
        if path.name.startswith("01_"):
            continue  # timed above
        commands[f"kata check {path.name[:2]} --file solutions/{path.name} (every check runs)"] = \
            [kata, "check", path.name[:2], "--file", f"solutions/{path.name}"]
    median_seconds(commands, 1)  # warm the file cache
    medians = median_seconds(commands, runs)
    baseline = next(iter(medians.values()))
    print(f"median of {runs} runs each, taken in turns")
    for label, seconds in medians.items():
        print(f"{seconds * 1000:7.0f} ms  {seconds / baseline:4.2f}x  {label}")


if __name__ == "__main__":
    main()

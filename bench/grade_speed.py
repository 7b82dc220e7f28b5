"""How long `kata grade` takes on 50 candidate workspaces of 5 katas each, as a whole process.

    python bench/grade_speed.py [--workspaces 50] [--jobs N] [--timeout 10] [--no-report]

The workspaces are packs (`kata pack`, one seed each) filled with a realistic mix: references,
untouched stubs, bug-zoo files, correct variants, and two hostile submissions (one loops forever,
one patches NumPy). The report is on, as a hiring team runs it: the Markdown report, --csv, --html and
--json (scores, ranking, times, similarity). The target: 50 x 5 katas within 60 s on a 2-core machine.
"""

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.engine import catalog  # noqa: E402 - the project's own package, from this checkout
from checker.hiring import pack
from checker.sandbox import DEFAULT_SECONDS  # noqa: E402

TESTS = ROOT / "tests"


KATAS = "01,02,03,04,05"


def build(folder, count, katas):
    """`count` packs of `katas` under `folder`, each kata filled by its turn in the mix."""
    zoo = {kata.slug: itertools.cycle(kata.files("zoo")) for kata in katas}
    correct = {kata.slug: itertools.cycle(kata.files("correct")) for kata in katas}
    hostile = {0: TESTS / "hostile" / "loop_forever.py", 1: TESTS / "hostile" / "patch_numpy.py"}
    workspaces = []
    for number in range(count):
        workspace = folder / f"candidate-{number:02d}"
        pack.make(workspace, katas, seed=number)
        for kata in katas:
            kind = (number + int(kata.id)) % 4  # reference, stub, zoo file, correct variant
            source = {0: kata.solution_path, 1: None, 2: next(zoo[kata.slug]), 3: next(correct[kata.slug])}[kind]
            if kata.id == "01" and number in hostile:
                source = hostile[number]
            if source:
                shutil.copy(source, workspace / "katas" / kata.filename)
        workspaces.append(workspace)
    return workspaces


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspaces", type=int, default=50)
    parser.add_argument("--jobs", type=int, help="passed to kata grade (default: its own)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_SECONDS, help="kata grade --timeout")
    parser.add_argument("--katas", default=KATAS, help=f"the katas of each pack (default: {KATAS})")
    parser.add_argument("--no-report", action="store_true", help="only --json: no Markdown, CSV or HTML file")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        katas = [catalog.find(key) for key in options.katas.split(",")]
        workspaces = build(folder, options.workspaces, katas)
        command = [sys.executable, "-m", "checker", "grade", *map(str, workspaces), "--timeout", str(options.timeout),
                   "--json"]
        if not options.no_report:
            command += ["--report", str(folder / "report.md"), "--csv", str(folder / "report.csv"),
                        "--html", str(folder / "report.html")]
        if options.jobs:
            command += ["--jobs", str(options.jobs)]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"kata grade failed (exit code {done.returncode}):\n{done.stderr}")
        checks = options.workspaces * len(katas)
        print(f"kata grade: {options.workspaces} workspaces x {len(katas)} katas = {checks} checks "
              f"in {seconds:.1f} s ({checks / seconds:.1f} checks/s) on {os.cpu_count()} CPUs")
        if not options.no_report:
            report = json.loads(done.stdout)
            print(f"report: {(folder / 'report.html').stat().st_size // 1024} KB of HTML, "
                  f"{len(report['similar'])} similar pairs flagged")
        print("target: 50 x 5 within 60 s:", "met" if seconds <= 60 * options.workspaces / 50 else "MISSED")


if __name__ == "__main__":
    main()

"""`kata bench 08`: what tiling buys, measured. A teaching tool, not a test: it passes and fails nothing.

At growing n_k (n_q, d and the block size fixed), the learner's flash_attention and a plain attention
that builds the whole (n_q, n_k) table: the peak memory of one call (tracemalloc) and the median time.
Both run in one sandbox, one BLAS thread, inputs made and timed inside the child.
"""

from dataclasses import dataclass
from pathlib import Path

from checker.sandbox import LearnerError, Limits, Sandbox, SandboxError

SIZES = (1024, 2048, 4096, 8192, 16384)
MAX_SIZE = 65536
N_Q, D, BLOCK_SIZE = 1024, 64, 128  # one head of 1024 queries, float32
REPEATS = 3
SEED = 2022  # FlashAttention, Dao et al.
CHILD = Path(__file__).with_name("bench_child.py")
NOTE = ("Time: in NumPy each block is a smaller matmul plus Python overhead, so tiles are no faster than one big "
        "matmul and lose when n_k or the blocks are small (the figures come from a shared machine and move by tens of "
        "percent from run to run). Memory: tiles win as soon as n_k passes the block size, and by more at every n_k: "
        "plain attention's peak grows with n_q x n_k, flash attention's stays near n_q x block_size (plus any copies "
        "of the inputs). On a GPU the tiles save time as well: the table never goes out to the GPU's main memory "
        "and back.")


class BenchError(Exception):
    """The bench could not run: the file under test crashed, timed out or is not finished."""


@dataclass
class Row:
    n_k: int
    flash_seconds: float
    flash_bytes: int
    plain_seconds: float
    plain_bytes: int
    difference: float  # the largest |flash - plain| of the outputs


def parse_sizes(text):
    """`--sizes` as key counts; the defaults when not given."""
    if text is None:
        return list(SIZES)
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        sizes = []
    if not sizes or sizes[0] < 1 or sizes[-1] > MAX_SIZE:
        raise ValueError(f"--sizes takes key counts from 1 to {MAX_SIZE} like 1024,4096,16384, not {text!r}")
    return sizes


def run(kata, path, sizes):
    """Measure the file at `path` against plain attention at each n_k in `sizes`: a list of Rows."""
    table_mb = N_Q * max(sizes) * 4 * 4 / 2**20  # plain attention's table and its temporaries, float32
    with Sandbox(CHILD, Limits(seconds=600, memory_mb=1024 + int(table_mb)), also=[path]) as sandbox:
        try:
            sandbox.load(["run"])  # the child reads its private copy of the file only
            found = sandbox.call("run", (sandbox.private_path(path), list(sizes), N_Q, D, BLOCK_SIZE, REPEATS, SEED))
        except LearnerError as error:
            finish = f" (finish the kata first: `kata check {kata.id}`)" if error.not_implemented else ""
            raise BenchError(f"your code raised {error}{finish}") from None
        except SandboxError as error:
            raise BenchError(f"your code: {error}") from None
    return [Row(n_k, float(a), int(b), float(c), int(d), float(e)) for n_k, (a, b, c, d, e) in zip(sizes, found)]


def _mib(size):
    return f"{size / 2**20:8.2f}"


def report(rows, file=""):
    """The table of peak memory and time, flash against plain, and what to read in it."""
    lines = [f"kata bench 08{f'  {file}' if file else ''}: one head, n_q = {N_Q} queries, d = {D}, float32, "
             f"block_size = {BLOCK_SIZE}; median of {REPEATS} runs",
             "",
             "    n_k   flash MiB   plain MiB   memory x   flash ms   plain ms   time x",
             ]
    for row in rows:
        lines.append(f"{row.n_k:7d}    {_mib(row.flash_bytes)}    {_mib(row.plain_bytes)}   "
                     f"{row.plain_bytes / max(row.flash_bytes, 1):8.1f}   {row.flash_seconds * 1000:8.1f}   "
                     f"{row.plain_seconds * 1000:8.1f}   {row.flash_seconds / max(row.plain_seconds, 1e-9):6.2f}")
    worst = max(row.difference for row in rows)
    agree = "agrees with" if worst < 1e-3 else "DIFFERS from"
    lines += ["", "memory x: plain's peak / yours; time x: your time / plain's (above 1: yours is slower).",
              f"Your output {agree} plain attention (largest difference {worst:.2g}).", "", NOTE]
    return "\n".join(lines)

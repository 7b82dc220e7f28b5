"""`kata bench 05`: what a KV cache buys, measured. A teaching tool, not a test: it passes and fails nothing.

It times one decode step (one new token) with the learner's cache and with the reference's, at several
cache lengths n, against making that token without a cache: kata 04's attention over the whole prefix,
recomputed from scratch. Everything runs in sandboxes (one per file under test, one after the other, so
they never compete for the CPU), with one BLAS thread each, and is timed inside the child.
"""

from dataclasses import dataclass
from pathlib import Path

from checker import catalog
from checker.sandbox import LearnerError, Limits, Sandbox, SandboxError

SIZES = (128, 256, 512, 1024, 2048)
BATCH, D_MODEL, N_HEADS = 1, 64, 4  # a small model: d_head = 16
STEPS = 9  # decode steps timed at each n; the median is shown
WARM_UP = 2  # decode steps run untimed before them
REPEATS = 3  # full recomputations timed at each n; the median is shown
CHUNK = 256  # prefill calls fill the cache this many tokens at a time
SEED = 2017
CHILD = Path(__file__).with_name("bench_child.py")
BENCHED = "kv-cache"


class BenchError(Exception):
    """The bench could not run: the file under test crashed, timed out or is not finished."""


@dataclass
class BenchRow:
    n: int  # cached positions when the token is made
    yours: float  # seconds per token: the learner's cache
    reference: float  # seconds per token: the reference's cache
    recompute: float  # seconds per token: attention over all n + 1 tokens, no cache

    @property
    def speedup(self):
        """How many times faster the learner's cached step is than recomputing."""
        return self.recompute / self.yours if self.yours > 0 else float("inf")


@dataclass
class BenchResult:
    kata: str  # "05"
    slug: str
    file: str
    batch: int
    d_model: int
    n_heads: int
    steps: int
    rows: list[BenchRow]
    matches_reference: bool  # the learner's decode outputs equal the reference's


def limits(sizes):
    """A generous time limit, and memory for the n x n tables of recomputing at the largest n."""
    table_mb = BATCH * N_HEADS * (max(sizes) + 1) ** 2 * 8 / 2**20
    return Limits(seconds=600, memory_mb=1024 + int(8 * table_mb))


def run(kata, path, sizes=SIZES):
    """Time the learner's file at `path` against the reference and against recomputing; a BenchResult."""
    import numpy as np

    from checker.runner import display_path

    if kata.slug != BENCHED:
        raise BenchError(f"kata bench times kata 05 ({BENCHED}) only, not {kata}")
    sizes = sorted(set(sizes))
    rng = np.random.default_rng(SEED)
    x = rng.normal(size=(BATCH, max(sizes) + WARM_UP + STEPS, D_MODEL))
    weights = [rng.normal(size=(D_MODEL, D_MODEL)) / np.sqrt(D_MODEL) for _ in range(4)]
    decode = ("time_decode", x, *weights, N_HEADS, list(sizes), STEPS, CHUNK, WARM_UP)
    yours, your_outputs = _in_sandbox(path, "your code", sizes, decode)
    reference, reference_outputs = _in_sandbox(kata.solution_path, "the reference", sizes, decode)
    recompute = _in_sandbox(catalog.find("multi-head").solution_path, "kata 04's reference", sizes,
                            ("time_recompute", x, *weights, N_HEADS, list(sizes), REPEATS))
    matches = your_outputs.shape == reference_outputs.shape and bool(
        np.allclose(your_outputs, reference_outputs, rtol=1e-3, atol=1e-5))
    rows = [BenchRow(n, *map(float, times)) for n, *times in zip(sizes, yours, reference, recompute)]
    return BenchResult(kata.id, kata.slug, display_path(path), BATCH, D_MODEL, N_HEADS, STEPS, rows, matches)


def _in_sandbox(path, who, sizes, request):
    """Run one timing function of bench_child.py on the kata file at `path`, in its own sandbox."""
    name, *args = request
    with Sandbox(CHILD, limits(sizes), also=[path]) as sandbox:  # the child reads its private copy only
        try:
            sandbox.load([name])
            return sandbox.call(name, (sandbox.private_path(path), *args))
        except LearnerError as error:
            finish = " (finish the kata first: `kata check 05`)" if error.not_implemented else ""
            raise BenchError(f"{who} raised {error}{finish}") from None
        except SandboxError as error:
            raise BenchError(f"{who}: {error}") from None

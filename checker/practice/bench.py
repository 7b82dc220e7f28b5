"""`kata bench 05`: what a KV cache buys, measured. A teaching tool, not a test: it passes and fails nothing.

It times one decode step (one new token) with the learner's cache and with the reference's, at several
cache lengths n, against making that token without a cache: kata 04's attention over the whole prefix,
recomputed from scratch. Everything runs in sandboxes (one per file under test, one after the other, so
they never compete for the CPU), with one BLAS thread each, and is timed inside the child.
"""

from dataclasses import dataclass
from pathlib import Path

from checker.engine import catalog
from checker.engine.runner import DEFAULT_SEED
from checker.sandbox import LearnerError, Limits, Sandbox, SandboxError

SIZES = (128, 256, 512, 1024, 2048)
BATCH, D_MODEL, N_HEADS = 1, 64, 4  # a small model: d_head = 16
STEPS = 5  # decode steps timed at each n in a round; their median is the round's figure
WARM_UP = 2  # decode steps run untimed before them
REPEATS = 1  # full recomputations timed at each n in a round
ROUNDS = 3  # rounds of all of it: the median round is shown, and the spread of the rounds
CHUNK = 256  # prefill calls fill the cache this many tokens at a time
SEED = DEFAULT_SEED  # the inputs' random seed, as the hidden tests'
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
    spread: float = 0.0  # the largest (slowest - fastest) / median of the rounds, over the three columns

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
    rounds: int = 1


def limits(sizes):
    """A generous time limit, and memory for the n x n tables of recomputing at the largest n."""
    table_mb = BATCH * N_HEADS * (max(sizes) + 1) ** 2 * 8 / 2**20
    return Limits(seconds=600, memory_mb=1024 + int(8 * table_mb))


def run(kata, path, sizes=SIZES, rounds=ROUNDS, progress=None):
    """Time the learner's file at `path` against the reference and against recomputing; a BenchResult.

    Each of the three is timed `rounds` times in its own sandbox; the median round is kept and the
    rounds' spread reported. `progress(text)` is told what runs, as it starts."""
    import numpy as np

    from checker.engine.runner import display_path

    if kata.slug != BENCHED:
        raise BenchError(f"kata bench times kata 05 ({BENCHED}) only, not {kata}")
    sizes = sorted(set(sizes))
    rng = np.random.default_rng(SEED)
    x = rng.normal(size=(BATCH, max(sizes) + WARM_UP + STEPS, D_MODEL))
    weights = [rng.normal(size=(D_MODEL, D_MODEL)) / np.sqrt(D_MODEL) for _ in range(4)]
    decode = ("time_decode", x, *weights, N_HEADS, list(sizes), STEPS, CHUNK, WARM_UP)
    tell = progress or (lambda text: None)
    timed = {}
    for key, who, subject, request in [
            ("yours", "your code", path, decode), ("reference", "the reference", kata.solution_path, decode),
            ("recompute", "kata 04's reference", catalog.find("multi-head").solution_path,
             ("time_recompute", x, *weights, N_HEADS, list(sizes), REPEATS))]:
        timed[key] = _in_sandbox(subject, who, sizes, request, rounds, tell)
    outputs = {key: timed[key][0][1] for key in ("yours", "reference")}
    matches = outputs["yours"].shape == outputs["reference"].shape and bool(
        np.allclose(outputs["yours"], outputs["reference"], rtol=1e-3, atol=1e-5))
    seconds = {key: np.array([r[0] if key != "recompute" else r for r in runs])
               for key, runs in timed.items()}  # (rounds, sizes)
    medians = {key: np.median(value, axis=0) for key, value in seconds.items()}
    spreads = np.max([(value.max(axis=0) - value.min(axis=0)) / np.maximum(medians[key], 1e-12)
                      for key, value in seconds.items()], axis=0)
    rows = [BenchRow(n, float(medians["yours"][i]), float(medians["reference"][i]), float(medians["recompute"][i]),
                     float(spreads[i])) for i, n in enumerate(sizes)]
    return BenchResult(kata.id, kata.slug, display_path(path), BATCH, D_MODEL, N_HEADS, STEPS, rows, matches, rounds)


def _in_sandbox(path, who, sizes, request, rounds, tell):
    """Run one timing function of bench_child.py `rounds` times on the kata file at `path`, in its own sandbox."""
    name, *args = request
    with Sandbox(CHILD, limits(sizes), also=[path]) as sandbox:  # the child reads its private copy only
        try:
            sandbox.load([name])
            runs = []
            for number in range(1, rounds + 1):
                tell(f"timing {who}: round {number} of {rounds}")
                runs.append(sandbox.call(name, (sandbox.private_path(path), *args)))
            return runs
        except LearnerError as error:
            finish = " (finish the kata first: `kata check 05`)" if error.not_implemented else ""
            raise BenchError(f"{who} raised {error}{finish}") from None
        except SandboxError as error:
            raise BenchError(f"{who}: {error}") from None

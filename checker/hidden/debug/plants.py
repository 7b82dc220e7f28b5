"""The bugs kata 10 can plant in its clean decoder (solutions/10_debug_decoder.py), and the draw.

Each plant is a catalogued id of katas 02-05 written as a small edit of the clean source: exact lines
replaced by the lines a person really writes, with nothing in a comment or a name to give it away.
Plants of one `site` edit the same lines, so a draw takes at most one per site; plants of different
sites touch different lines, so any of them combine. Which plants remain in a learner's file is read
from what the file computes (see `tests.py`), never from its text.
"""

import random
import types
from dataclasses import dataclass
from functools import lru_cache
from checker.engine.catalog import DATA

PLANTED = 4  # bugs in each file
SOLUTION = DATA / "solutions" / "10_debug_decoder.py"  # the checkout's, or the wheel's copy


@dataclass(frozen=True)
class Plant:
    bug: str  # the catalogued id
    site: str  # plants of one site edit the same lines
    area: str  # where to look, for the second hint level
    edits: tuple  # (clean line, planted line(s)) pairs; "" deletes the line

    def apply(self, source):
        for clean, planted in self.edits:
            if source.count(clean) != 1:
                raise ValueError(f"plant {self.bug}: the line {clean.strip()!r} is not in the source exactly once")
            source = source.replace(clean, planted)
        return source


_MAX = "    shifted = scores - scores.max(axis=-1, keepdims=True)  # (..., n_q, n_k): largest exponent is 0\n"
_EXP = "    e = np.exp(shifted)\n"
_SUM = "    return e / e.sum(axis=-1, keepdims=True)  # (..., n_q, n_k)\n"
_MASK = "    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)  # (n_q, n_k)\n"
_SPLIT = ("    heads = x.reshape(b, t, n_heads, d_model // n_heads)  # (b, t, h, d_head)\n"
          "    return heads.transpose(0, 2, 1, 3)  # (b, h, t, d_head)\n")
_MERGE = ("    tokens = x.transpose(0, 2, 1, 3)  # (b, t, h, d_head)\n"
          "    return tokens.reshape(b, t, h * d_head)  # (b, t, d_model)\n")
_INIT = ("    def __init__(self):\n"
         "        self.keys, self.values = [], []  # one (b, h, t, d_head) chunk per append\n")
_STORE = "        self.keys.append(k)\n        self.values.append(v)\n"
_JOIN = "        return np.concatenate(self.keys, axis=2), np.concatenate(self.values, axis=2)  # (b, h, n, d_head)\n"
_PROJECT = "    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))  # (b, h, t, d_head) each\n"
_SCALE = "    scores = q @ k_all.swapaxes(-1, -2) / np.sqrt(d_head)  # (b, h, t, n)\n"
_BLOCK = ("    scores = np.where(causal_mask(t, n), scores, -np.inf)  # (b, h, t, n): the future is blocked\n"
          "    weights = softmax(scores)  # (b, h, t, n)\n")
_OUTPUT = "    return out @ w_o  # (b, t, d_model)\n"

POOL = (
    Plant("no-max-shift", "softmax-shift", "the softmax", ((_MAX, ""), (_EXP, "    e = np.exp(scores)\n"))),
    Plant("missing-keepdims", "softmax-sum", "the softmax",
          ((_SUM, "    return e / e.sum(axis=-1)  # (..., n_q, n_k)\n"),)),
    Plant("global-sum", "softmax-sum", "the softmax", ((_SUM, "    return e / e.sum()  # (..., n_q, n_k)\n"),)),
    Plant("mask-top-left", "mask", "the causal mask",
          ((_MASK, "    return np.tril(np.ones((n_q, n_k), dtype=bool))  # (n_q, n_k)\n"),)),
    Plant("mask-flipped", "mask", "the causal mask",
          ((_MASK, "    return np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)  # (n_q, n_k)\n"),)),
    Plant("reshape-without-transpose", "split", "the head split",
          ((_SPLIT, "    return x.reshape(b, n_heads, t, d_model // n_heads)  # (b, h, t, d_head)\n"),)),
    Plant("heads-interleaved", "split", "the head split",
          ((_SPLIT, "    heads = x.reshape(b, t, d_model // n_heads, n_heads)  # (b, t, d_head, h)\n"
                    "    return heads.transpose(0, 3, 1, 2)  # (b, h, t, d_head)\n"),)),
    Plant("merge-without-transpose", "merge", "the head merge",
          ((_MERGE, "    return x.reshape(b, t, h * d_head)  # (b, t, d_model)\n"),)),
    Plant("shared-cache-state", "cache", "the cache",
          ((_INIT, "    def __init__(self, keys=[], values=[]):\n"
                   "        self.keys, self.values = keys, values  # one (b, h, t, d_head) chunk per append\n"),)),
    Plant("cache-overwritten", "cache", "the cache", ((_STORE, "        self.keys = [k]\n        self.values = [v]\n"),)),
    Plant("cache-wrong-axis", "cache", "the cache",
          ((_JOIN, "        return np.concatenate(self.keys, axis=1), np.concatenate(self.values, axis=1)"
                   "  # (b, h, n, d_head)\n"),)),
    Plant("weight-orientation", "projection", "the projections",
          ((_PROJECT, "    q, k, v = (split_heads(x @ w.T, n_heads) for w in (w_q, w_k, w_v))  # (b, h, t, d_head) each\n"),)),
    Plant("missing-scale", "scale", "the scores",
          ((_SCALE, "    scores = q @ k_all.swapaxes(-1, -2)  # (b, h, t, n)\n"),)),
    Plant("scale-by-d-model", "scale", "the scores",
          ((_SCALE, "    scores = q @ k_all.swapaxes(-1, -2) / np.sqrt(d_model)  # (b, h, t, n)\n"),)),
    Plant("mask-after-softmax", "masking", "where the mask is applied",
          ((_BLOCK, "    weights = softmax(scores) * causal_mask(t, n)  # (b, h, t, n): the future is blocked\n"),)),
    Plant("missing-output-projection", "output", "the output",
          ((_OUTPUT, "    return out  # (b, t, d_model)\n"),)),
)
BY_BUG = {plant.bug: plant for plant in POOL}
DEFAULT = ("no-max-shift", "mask-top-left", "merge-without-transpose", "missing-scale")  # the shipped stub's four


def draw(seed):
    """The four bugs planted for `seed`: four sites, one plant of each, in pool order."""
    rng = random.Random(f"kata-10-plants:{seed}")
    sites = sorted({plant.site for plant in POOL})
    chosen = set(rng.sample(sites, PLANTED))
    return tuple(rng.choice([p for p in POOL if p.site == site]).bug for site in sorted(chosen))


def planted(seed, default_seed):
    """The bugs of the file a learner or candidate was given: the shipped four for the default seed."""
    return DEFAULT if seed == default_seed else draw(seed)


@lru_cache(maxsize=1)
def clean_source():
    return SOLUTION.read_text(encoding="utf-8")


def source_with(bugs):
    """The clean decoder with `bugs` planted (any plants of different sites)."""
    plants = [BY_BUG[bug] for bug in bugs]
    sites = [plant.site for plant in plants]
    if len(set(sites)) != len(sites):
        raise ValueError(f"two plants of one site: {', '.join(bugs)}")
    source = clean_source()
    for plant in plants:
        source = plant.apply(source)
    return source


def module_with(bugs):
    """The clean decoder with `bugs` planted, loaded here as a module: our own code, never a learner's."""
    module = types.ModuleType("kata_planted")
    exec(compile(source_with(bugs), f"<decoder with {', '.join(bugs) or 'no bug'}>", "exec"), vars(module))
    return module

"""Public checks for your katas: does your code run, are the shapes right, do the worked examples hold?

    python check.py          every kata of this pack
    python check.py 03       one kata

These checks are thin on purpose: passing them says your code runs, returns the right shapes and
reproduces the examples written in the docstrings. The graders' hidden tests go further: values on
other shapes and every edge case the docstrings list. Needs Python 3.10+ and NumPy only.
"""

import doctest
import importlib.util
import sys
import traceback
from pathlib import Path

import numpy as np

# Written by `kata pack`: each kata's file and the dimensions of this pack's shape checks, and the
# examples of the stubs' docstrings as (name, [(source, expected output)]).
KATAS = {}
EXAMPLES = {}

HERE = Path(__file__).resolve().parent
RANDOM = np.random.default_rng(0)  # input values do not matter here, only their shapes


class Problem(Exception):
    """A check that did not hold; the message says the call, what came back and what was expected."""


def main(args):
    unknown = [arg for arg in args if _key(arg) not in KATAS]
    if unknown:
        sys.exit(f"unknown kata {unknown[0]!r}: this pack holds {', '.join(KATAS)}")
    chosen = [_key(arg) for arg in args] or list(KATAS)
    all_ok = True
    for kata_id in chosen:
        verdict, detail = check_kata(kata_id)
        all_ok = all_ok and verdict == "ok"
        first, *rest = detail.splitlines() or [""]
        print(f"{kata_id} {KATAS[kata_id]['slug']:<12} {verdict}: {first}")
        for line in rest[:24]:
            print("    " + line)
    print("\nShapes and worked examples only: the hidden tests check values and every edge case "
          "of the docstrings.")
    return 0 if all_ok else 1


def _key(arg):
    return arg.zfill(2) if arg.isdigit() else arg


def check_kata(kata_id):
    """("ok" | "not implemented yet" | "FAILED", what to tell the candidate)."""
    entry = KATAS[kata_id]
    path = HERE / "katas" / entry["file"]
    try:
        module = _load(path, kata_id)
        for case in entry["cases"]:
            SHAPE_CHECKS[entry["slug"]](module, case)
        run_worked_examples(module, kata_id)
    except NotImplementedError as error:
        return "not implemented yet", str(error)
    except Problem as problem:
        return "FAILED", str(problem)
    except Exception as error:  # the candidate's code crashed: say where, briefly
        return "FAILED", f"{type(error).__name__}: {error}{_where(error, path)}"
    return "ok", "runs, right shapes, worked examples hold"


def _load(path, kata_id):
    if not path.is_file():
        raise Problem(f"no file {path.relative_to(HERE)}")
    spec = importlib.util.spec_from_file_location(f"candidate_kata_{kata_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _where(error, path):
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == str(path)]
    return f" (at katas/{path.name}:{lines[-1]})" if lines else ""


def run_worked_examples(module, kata_id):
    """The examples of the stub's docstrings (the >>> lines), run as doctests on the candidate's module."""
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report = []
    for name, pairs in EXAMPLES.get(kata_id, []):
        examples = [doctest.Example(source, want) for source, want in pairs]
        test = doctest.DocTest(examples, dict(vars(module)), name, None, None, None)
        if runner.run(test, out=report.append, clear_globs=True).failed:
            lines = [line for line in "".join(report).splitlines() if not line.startswith(("*****", "Line "))]
            raise Problem(f"a worked example of {name}'s docstring does not hold:\n" + "\n".join(lines))


# --- shape checks, one function per kata -----------------------------------------------------------

def _array(*shape):
    return RANDOM.normal(size=shape)


def _expect_shape(call, got, shape):
    if np.shape(got) != tuple(shape):
        raise Problem(f"{call} returned shape {np.shape(got)}, expected {tuple(shape)}")


def check_scores(module, dims):
    lead, n_q, n_k, d_k = dims["lead"], dims["n_q"], dims["n_k"], dims["d_k"]
    got = module.attention_scores(_array(*lead, n_q, d_k), _array(*lead, n_k, d_k))
    _expect_shape(f"attention_scores(q {(*lead, n_q, d_k)}, k {(*lead, n_k, d_k)})", got, (*lead, n_q, n_k))


def check_softmax(module, dims):
    shape, axis = tuple(dims["shape"]), dims["axis"]
    _expect_shape(f"softmax(x {shape}, axis={axis})", module.softmax(_array(*shape), axis=axis), shape)


def check_causal_mask(module, dims):
    b, n_q, n_k, d_k, d_v = dims["b"], dims["n_q"], dims["n_k"], dims["d_k"], dims["d_v"]
    mask = module.causal_mask(n_q, n_k)
    _expect_shape(f"causal_mask({n_q}, {n_k})", mask, (n_q, n_k))
    if np.asarray(mask).dtype != bool:
        raise Problem(f"causal_mask({n_q}, {n_k}) returned dtype {np.asarray(mask).dtype}, expected bool")
    call = f"attention(q {(b, n_q, d_k)}, k {(b, n_k, d_k)}, v {(b, n_k, d_v)}, causal_mask({n_q}, {n_k}))"
    result = module.attention(_array(b, n_q, d_k), _array(b, n_k, d_k), _array(b, n_k, d_v), mask)
    if not isinstance(result, tuple) or len(result) != 2:
        raise Problem(f"{call} returned {type(result).__name__}, expected a pair (out, weights)")
    _expect_shape(call + "'s out", result[0], (b, n_q, d_v))
    _expect_shape(call + "'s weights", result[1], (b, n_q, n_k))


def check_multi_head(module, dims):
    b, n, heads, d_head = dims["b"], dims["n"], dims["heads"], dims["d_head"]
    width = heads * d_head
    x, weights = _array(b, n, width), [_array(width, width) for _ in range(4)]
    split = module.split_heads(x, heads)
    _expect_shape(f"split_heads(x {(b, n, width)}, {heads})", split, (b, heads, n, d_head))
    _expect_shape(f"merge_heads(x {(b, heads, n, d_head)})", module.merge_heads(split), (b, n, width))
    for causal in (True, False):
        got = module.multi_head_attention(x, *weights, n_heads=heads, causal=causal)
        _expect_shape(f"multi_head_attention(x {(b, n, width)}, w_q, w_k, w_v, w_o, n_heads={heads}, "
                      f"causal={causal})", got, (b, n, width))


def check_kv_cache(module, dims):
    b, heads, d_head, chunks = dims["b"], dims["heads"], dims["d_head"], dims["chunks"]
    width = heads * d_head
    x, weights = _array(b, sum(chunks), width), [_array(width, width) for _ in range(4)]
    cache, start = module.KVCache(), 0
    for t in chunks:
        got = module.cached_attention(x[:, start:start + t], cache, *weights, n_heads=heads)
        call = f"cached_attention(x[:, {start}:{start + t}] of {(b, sum(chunks), width)}, cache, ..., n_heads={heads})"
        _expect_shape(call, got, (b, t, width))
        start += t
        if len(cache) != start:
            raise Problem(f"after {call}, len(cache) is {len(cache)}, expected {start}")


SHAPE_CHECKS = {"scores": check_scores, "softmax": check_softmax, "causal-mask": check_causal_mask,
                "multi-head": check_multi_head, "kv-cache": check_kv_cache}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

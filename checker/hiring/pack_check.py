"""Public checks for your katas: does your code run, are the shapes right, do the worked examples hold?

    python check.py          every kata of this pack
    python check.py 03       one kata

These checks are thin on purpose: passing them says your code runs, returns the right shapes and
reproduces the examples written in the docstrings. The graders' hidden tests go further: values on
other shapes and every edge case the docstrings list. The katas are checked in a process of their own,
each stopped after LIMIT_SECONDS (an endless loop is reported, never waited for; the rest go on). Needs Python 3.10+ and
NumPy only.
"""

import doctest
import importlib.util
import json
import queue
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

import numpy as np

# Written by `kata pack`: each kata's file and the dimensions of this pack's shape checks, and the
# examples of the stubs' docstrings as (name, [(source, expected output)]).
KATAS = {}
EXAMPLES = {}

HERE = Path(__file__).resolve().parent
LIMIT_SECONDS = 20  # for one kata's checks, the import included
GRADER_SECONDS = 10  # the graders' limit for one kata's hidden tests in all (kata pack writes it)
SLOW_SHARE = 0.25  # these checks take a few small calls: a quarter of the graders' limit here is too slow there
VERDICT = "@@check.py verdict@@ "  # how the process checking one kata hands back its verdict
RANDOM = np.random.default_rng(0)  # input values do not matter here, only their shapes


class Problem(Exception):
    """A check that did not hold; the message says the call, what came back and what was expected."""


def main(args):
    if args[:1] == ["--child"]:  # the process that checks the katas (see run_all): a verdict line each
        for kata_id in args[1:]:
            verdict, detail, seconds = check_kata(kata_id)
            if verdict in ("ok", "shapes ok") and seconds > SLOW_SHARE * GRADER_SECONDS:
                verdict, detail = "SLOW", (f"right shapes, but these few small calls took {seconds:.1f} s: the "
                                           f"graders' tests make many larger ones within {GRADER_SECONDS} s in all")
            print("\n" + VERDICT + json.dumps([kata_id, verdict, detail, round(seconds, 2)]), flush=True)
        return 0
    unknown = [arg for arg in args if _key(arg) not in KATAS]
    if unknown:
        sys.exit(f"unknown kata {unknown[0]!r}: this pack holds {', '.join(KATAS)}")
    verdicts = run_all([_key(arg) for arg in args] or list(KATAS))
    print("\nShapes and worked examples only: the hidden tests check values and every edge case "
          f"of the docstrings, and stop each kata after {GRADER_SECONDS} s in all.")
    return 0 if all(verdict in ("ok", "shapes ok") for verdict in verdicts) else 1


def run_all(chosen):
    """Check the katas in a process of their own, each stopped after LIMIT_SECONDS (the rest go on in a
    new process); print what the code printed and each verdict as it comes. The verdicts, in order."""
    verdicts, todo = [], list(chosen)
    while todo:
        child = subprocess.Popen([sys.executable, "-u", str(Path(__file__).resolve()), "--child", *todo], cwd=HERE,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        lines = queue.Queue()
        threading.Thread(target=_pump, args=(child.stdout, lines), daemon=True).start()
        deadline = time.monotonic() + LIMIT_SECONDS
        while todo:
            try:
                line = lines.get(timeout=max(deadline - time.monotonic(), 0))
            except queue.Empty:
                child.kill()
                verdicts.append(_say(todo.pop(0), "FAILED", f"still running after {LIMIT_SECONDS} s, so it was "
                                     "stopped: an endless loop, or far too slow? (the graders' tests have a time "
                                     "limit too)"))
                break
            if line is None:
                code = child.wait()
                verdicts.append(_say(todo.pop(0), "FAILED", f"the check stopped before its end (exit code {code}): "
                                     "did your code exit or crash Python?"))
                break
            if line.startswith(VERDICT):
                kata_id, verdict, detail, seconds = json.loads(line[len(VERDICT):])
                todo.remove(kata_id)
                verdicts.append(_say(kata_id, verdict, detail, seconds))
                deadline = time.monotonic() + LIMIT_SECONDS
            elif line.strip():
                print(line, end="")  # what the candidate's code printed
        child.stdout.close()
        child.wait()
    return verdicts


def _pump(stream, lines):
    for line in stream:
        lines.put(line)
    lines.put(None)


def _say(kata_id, verdict, detail, seconds=None):
    first, *rest = detail.splitlines() or [""]
    took = f" [{seconds:.1f} s]" if seconds is not None else ""
    print(f"{kata_id} {KATAS[kata_id]['slug']:<12} {verdict}: {first}{took}", flush=True)
    for line in rest[:24]:
        print("    " + line)
    return verdict


def _key(arg):
    return arg.zfill(2) if arg.isdigit() else arg


def check_kata(kata_id):
    """("ok" | "shapes ok" | "not implemented yet" | "FAILED", what to tell the candidate, the seconds its calls
    took). The file's import (PyTorch's own 1-2 s) is not timed: the graders start their clock after it too."""
    entry = KATAS[kata_id]
    path = HERE / "katas" / entry["file"]
    started = time.perf_counter()
    try:
        module = _load(path, kata_id)
        started = time.perf_counter()
        for case in entry["cases"]:
            SHAPE_CHECKS[entry["slug"]](module, case)
        run_worked_examples(module, kata_id)
    except NotImplementedError as error:
        verdict = "not implemented yet", str(error)
    except Problem as problem:
        verdict = "FAILED", str(problem)
    except Exception as error:  # the candidate's code crashed: say where, briefly
        verdict = "FAILED", f"{type(error).__name__}: {error}{_where(error, path)}"
    else:
        if entry.get("planted"):  # a file that runs with bugs in it: shapes cannot tell whether they are gone
            verdict = "shapes ok", ("runs and returns the right shapes; whether planted bugs remain, only the "
                                    "graders' tests can tell: check the values yourself")
        else:
            verdict = "ok", "runs, right shapes, worked examples hold"
    return (*verdict, time.perf_counter() - started)


def _load(path, kata_id):
    if not path.is_file():
        raise Problem(f"no file {path.relative_to(HERE)}")
    spec = importlib.util.spec_from_file_location(f"candidate_kata_{kata_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch = sys.modules.get("torch")
    return Tensors(module, torch) if torch is not None and vars(module).get("torch") is torch else module


class Tensors:
    """A kata file written in PyTorch, seen with NumPy's arrays as the graders' checker sees it: arrays and
    nested lists go in as tensors, tensors come back as arrays (a 0-d integer tensor as an int)."""

    def __init__(self, target, torch):
        self._target, self._torch = target, torch

    def __getattr__(self, name):
        value = getattr(self._target, name)
        return self._wrap(value) if callable(value) else value

    def __len__(self):
        return len(self._target)

    def _wrap(self, function):
        def call(*args, **kwargs):
            result = function(*[self._in(a) for a in args], **{k: self._in(v) for k, v in kwargs.items()})
            return self._out(result)
        return call

    def _in(self, value):
        if isinstance(value, Tensors):
            return value._target
        if isinstance(value, np.ndarray):
            return self._torch.from_numpy(value)
        if isinstance(value, list) and value and isinstance(value[0], list):
            return self._torch.as_tensor(np.asarray(value))
        return value

    def _out(self, value):
        torch = self._torch
        if isinstance(value, torch.Tensor):
            value = value.detach().cpu()
            return value.item() if value.ndim == 0 and not value.is_floating_point() else value.numpy()
        if isinstance(value, (list, tuple)):
            return type(value)(self._out(item) for item in value)
        if hasattr(value, "__dict__") and type(value).__module__ == getattr(self._target, "__name__", None):
            return Tensors(value, torch)  # an object of the candidate's (a KVCache): its methods too
        return value


def _where(error, path):
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == str(path)]
    return f" (at katas/{path.name}:{lines[-1]})" if lines else ""


def run_worked_examples(module, kata_id):
    """The examples of the stub's docstrings (the >>> lines), run as doctests on the candidate's module."""
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report = []
    for name, pairs in EXAMPLES.get(kata_id, []):
        examples = [doctest.Example(source, want) for source, want in pairs]
        names = vars(module._target) if isinstance(module, Tensors) else vars(module)
        globs = {key: getattr(module, key) for key in names} if isinstance(module, Tensors) else dict(names)
        globs.setdefault("np", np)  # the examples are written with NumPy, which a PyTorch file may not import
        test = doctest.DocTest(examples, globs, name, None, None, None)
        if runner.run(test, out=report.append, clear_globs=True).failed:
            lines = [line for line in "".join(report).splitlines() if not line.startswith(("*****", "Line "))]
            raise Problem(f"a worked example of {name}'s docstring does not hold:\n" + "\n".join(lines))


# --- what the kata's shape checks are written with ----------------------------------------------------

def random_array(*shape):
    return RANDOM.normal(size=shape)


def expect_shape(call, got, shape):
    if np.shape(got) != tuple(shape):
        raise Problem(f"{call} returned shape {np.shape(got)}, expected {tuple(shape)}")


# Written by `kata pack`: each kata's `check` from its public.py, and the table of them by slug.
SHAPE_CHECKS = {}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

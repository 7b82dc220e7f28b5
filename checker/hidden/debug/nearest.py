"""Where a kata 10 file computes neither a planted bug nor its fix: the function, and its lines in the stub as
planted, read from what the file computes (the probes of probes.py), never from its text.

The probes call the helpers one by one before the decoder (softmax twice, causal_mask, split_heads,
merge_heads), then cached_attention, the cache alone, and cached_attention again. Against the mix of the
planted bugs the file is nearest to (the fewest probes apart), the first helper whose own probe departs is
the site (a KVCache that cannot be made gives fewer answers: the cache); when every helper's probe agrees,
it is cached_attention's own lines.
"""

import ast
import itertools

from checker.hidden.debug import plants, probes

HELPERS = ("softmax", "causal_mask", "split_heads", "merge_heads", "KVCache")


def function_of(label):
    """The function a probe's label (probes.answers' `labels`) asks: `KVCache.append` and `len(cache)` are the
    cache's, a decode call is cached_attention's."""
    if label.startswith("KVCache") or "len" in label:
        return "KVCache"
    return label if label in HELPERS else "cached_attention"


def site(got, labels, planted):
    """(function, first line, last line, planted lines or None) where `got` (probes.answers of the learner's
    file, `labels` its functions) departs from every mix of the `planted` bugs, its lines those of the stub as
    planted (and the lines of the plant inside it, if any); None when some mix explains every probe."""
    apart = None
    for size in range(len(planted) + 1):
        for subset in itertools.combinations(sorted(planted), size):
            want = probes.planted_answers(subset)
            off = [i for i, (mine, theirs) in enumerate(zip(got, want)) if not probes.same(mine, theirs)]
            off += list(range(min(len(got), len(want)), max(len(got), len(want))))  # probes one side lacks
            if apart is None or len(off) < len(apart):
                apart = off
    if not apart:
        return None
    functions = [function_of(labels[i]) if i < len(labels) else "KVCache" for i in apart]
    helpers = [name for name in functions if name != "cached_attention"]
    return _where(helpers[0] if helpers else "cached_attention", planted)


def _where(function, planted):
    source = plants.source_with(planted)
    node = next(node for node in ast.parse(source).body
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == function)
    lines = source.splitlines()
    inside = range(node.lineno, node.end_lineno + 1)
    planted_lines = [number for plant in (plants.BY_BUG[bug] for bug in planted) for _, text in plant.edits if text
                     for number in _lines_of(lines, text) if number in inside]
    return function, node.lineno, node.end_lineno, (min(planted_lines), max(planted_lines)) if planted_lines else None


def _lines_of(lines, text):
    """The line numbers (from 1) where the lines of `text` stand together in `lines`."""
    wanted = text.rstrip("\n").split("\n")
    for start in range(len(lines) - len(wanted) + 1):
        if lines[start:start + len(wanted)] == wanted:
            return range(start + 1, start + 1 + len(wanted))
    return range(0)


def text(found):
    """The site as a hint says it."""
    function, first, last, plant = found
    edit = "" if plant is None else f", its planted edit at {_span(*plant)}"
    return f"{function} ({_span(first, last)} of the stub as planted{edit})"


def _span(first, last):
    return f"line {first}" if first == last else f"lines {first}-{last}"

"""The probe a `kata defend` predict question traces with, added on the parent's bytes: after a chosen assignment a
call on the same line (`; kata_probe_hook_(LINE, name)`), so every line number holds, and two helpers below the
file's last line; which line fires is set per run (`kata_probe_at_(line)`). A fired probe raises SystemExit with
a JSON report of the value (shape, dtype kind, size, its first 8 numbers): the child's report, read strictly."""

import ast
from dataclasses import dataclass

from checker.practice.defend_edits import _functions, _lines, line_text, parse

PROBE_HOOK, PROBE_AT = "kata_probe_hook_", "kata_probe_at_"  # no leading "__": a method's call is not name-mangled
PROBE_MARK = "kata-probe:"


@dataclass(frozen=True)
class Probe:
    line: int
    name: str  # the variable assigned on that line
    code: str  # the line as written
    in_loop: bool  # the trace is of its first pass


_HELPERS = f'''

def {PROBE_AT}(line):
    globals()["{PROBE_AT}line"] = line


def {PROBE_HOOK}(line, value):
    if globals().get("{PROBE_AT}line") != line:
        return
    import json as j, numpy as n
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    a = n.asarray(value)
    ok = a.dtype.kind in "biuf"
    flat = a.astype(n.float64).ravel()[:8].tolist() if ok else []
    raise SystemExit("{PROBE_MARK}" + j.dumps({{"shape": list(a.shape), "kind": a.dtype.kind, "size": int(a.size),
                                             "values": flat}}))
'''


def probes(source, functions=None):
    """The assignments a predict question may trace: `name = ...` and `name += ...`, one per line."""
    tree, found, lines = parse(source), {}, _lines(source)
    for scope, function in _functions(tree):
        if functions and scope not in functions and function.name not in functions:
            continue
        loops = [node for node in ast.walk(function) if isinstance(node, (ast.For, ast.While))]
        for node in ast.walk(function):
            name = _assigned_name(node)
            if name and node.lineno == node.end_lineno and node.lineno not in found:
                in_loop = any(loop.lineno < node.lineno <= loop.end_lineno for loop in loops)
                found[node.lineno] = Probe(node.lineno, name, line_text(lines, node.lineno), in_loop)
    return [found[line] for line in sorted(found)]


def _assigned_name(node):
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    return None


def instrumented(source, chosen):
    """The file with a probe call after each chosen assignment (same line, so every line number holds) and the
    two helpers below its last line; which probe fires is set per run by calling `kata_probe_at_(line)`."""
    lines, tree = list(_lines(source)), parse(source)
    wanted = {probe.line: probe.name for probe in chosen}
    for node in sorted((n for n in ast.walk(tree) if getattr(n, "lineno", None) in wanted and _assigned_name(n)),
                       key=lambda n: n.lineno):
        if _assigned_name(node) != wanted.get(node.lineno):
            continue
        row = lines[node.lineno - 1]
        hook = f"; {PROBE_HOOK}({node.lineno}, {wanted.pop(node.lineno)})".encode()
        lines[node.lineno - 1] = row[:node.end_col_offset] + hook + row[node.end_col_offset:]
    text = b"".join(lines)
    if text and not text.endswith(b"\n"):
        text += b"\n"
    return text + _HELPERS.encode()

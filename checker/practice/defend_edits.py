"""The edits `kata defend` asks about: small changes to the learner's own file, made here, on the trusted side,
as text edits of the bytes the parent already holds (mutation analysis, as mutation-testing tools do it).

Each edit replaces one node's source segment (an expression, or a statement by `pass`), so every other byte and
every line number of the file stays as the learner wrote it (the probes a predict question traces with are
defend_probes.py's). Nothing here runs the learner's code: the mutants run in the sandbox (`defend_host.py`).
"""

import ast
import io
import tokenize
from dataclasses import dataclass



@dataclass(frozen=True)
class Edit:
    """One mutant: what changed, where, and the whole mutated file."""

    kind: str  # an edit kind of the kata's defend.yaml (`remove`, `axis`, ...)
    line: int  # the first line it changes
    last: int  # the last line of the node it replaces (a removed block: the lines after the first are left blank)
    old: str  # that line as the learner wrote it (stripped)
    new: str  # that line after the edit (stripped)
    description: str  # "if line 14 were removed", "if `axis=-1` on line 9 were `axis=0`"
    source: bytes  # the mutated file
    changes: tuple = ()  # (line, its whole new text) of every line the edit changes, in order

    def to_json(self):
        return {"kind": self.kind, "description": self.description, "old": self.old, "new": self.new,
                "lines": [self.line, self.last], "changes": [list(change) for change in self.changes]}


class Unparsable(ValueError):
    """A file this module will not edit (not UTF-8, or not Python): no what-if and no predict question."""


MAX_SOURCE_BYTES = 64 * 1024  # a kata file is a few KiB: past this the parent edits and compiles nothing
MAX_CANDIDATES = 400  # edits considered per file, at most: each copies the file's bytes once


def _lines(source):
    """The file's lines as bytes (ast's column offsets are UTF-8 byte offsets), ends kept."""
    if len(source) > MAX_SOURCE_BYTES:
        raise Unparsable(f"the file is over {MAX_SOURCE_BYTES // 1024} KiB")
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError as error:
        raise Unparsable(str(error)) from None
    if encoding not in ("utf-8", "utf-8-sig"):
        raise Unparsable(f"the file is written in {encoding}, not UTF-8")
    return source.splitlines(keepends=True)


def parse(source):
    """The file's syntax tree, or Unparsable."""
    _lines(source)
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError) as error:
        raise Unparsable(str(error)) from None


def segment(lines, node):
    """A node's source text, decoded."""
    if node.lineno == node.end_lineno:
        return lines[node.lineno - 1][node.col_offset:node.end_col_offset].decode("utf-8", "replace")
    parts = [lines[node.lineno - 1][node.col_offset:]] + lines[node.lineno:node.end_lineno - 1] + \
            [lines[node.end_lineno - 1][:node.end_col_offset]]
    return b"".join(parts).decode("utf-8", "replace")


def replace(lines, node, text):
    """The file with `node`'s segment replaced by `text`; a multi-line segment keeps its line count (blank lines)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    head, tail = lines[first][:node.col_offset], lines[last][node.end_col_offset:]
    padding = b"\n" * (last - first)
    return b"".join(lines[:first] + [head + text.encode() + padding + tail] + lines[last + 1:])


def line_text(lines, number):
    return lines[number - 1].decode("utf-8", "replace").strip()


# --- the edit kinds ------------------------------------------------------------------------------

def _call_name(node):
    """`np.sqrt(x)` -> "sqrt", `sqrt(x)` -> "sqrt", else None."""
    if not isinstance(node, ast.Call):
        return None
    function = node.func
    return function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)


def _neg_inf(node):
    """`-np.inf`, `-math.inf`, `float("-inf")`, `-float("inf")`, `np.finfo(...).min`, a literal below -1e8."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = node.operand
        if isinstance(inner, ast.Attribute) and inner.attr == "inf":
            return True
        if isinstance(inner, ast.Constant) and isinstance(inner.value, (int, float)) and inner.value >= 1e8:
            return True
        return _call_name(inner) == "float" and _text_arg(inner) == "inf"
    if _call_name(node) == "float" and _text_arg(node) == "-inf":
        return True
    return isinstance(node, ast.Attribute) and node.attr == "min" and _call_name(node.value) in ("finfo", "iinfo")


def _text_arg(call):
    return call.args[0].value.lower() if call.args and isinstance(call.args[0], ast.Constant) and isinstance(
        call.args[0].value, str) else None


_SWAPPED = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">"}
_REMOVABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.If, ast.For, ast.While)


def _candidates(kind, node, lines):
    """(node to replace, its new text, what the edit is called) for one AST node and one edit kind."""
    if kind == "remove" and isinstance(node, _REMOVABLE):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return  # a docstring
        yield node, "pass", None
    elif kind == "drop-subtraction" and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        yield node, segment(lines, node.left), None
    elif kind == "div-drop" and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        yield node, segment(lines, node.left), None
    elif kind == "add-to-mul" and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield node, f"{segment(lines, node.left)} * {segment(lines, node.right)}", None
    elif kind == "compare" and isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _SWAPPED:
        yield node, f"{segment(lines, node.left)} {_SWAPPED[type(node.ops[0])]} {segment(lines, node.comparators[0])}", None
    elif kind in ("axis", "keepdims", "k-zero") and isinstance(node, ast.keyword):
        value = segment(lines, node.value)
        if kind == "axis" and node.arg in ("axis", "dim"):
            yield node, f"{node.arg}={'0' if value.strip() != '0' else '-1'}", None
        elif kind == "keepdims" and node.arg in ("keepdims", "keepdim") and value.strip() == "True":
            yield node, f"{node.arg}=False", None
        elif kind == "k-zero" and node.arg in ("k", "diagonal") and value.strip() != "0":
            yield node, f"{node.arg}=0", None
    elif kind == "sqrt" and _call_name(node) == "sqrt" and len(node.args) == 1:
        yield node, segment(lines, node.args[0]), None
    elif kind == "exp-drop" and _call_name(node) == "exp" and len(node.args) == 1 and isinstance(node.args[0], ast.BinOp):
        yield node, "1.0", None
    elif kind == "max-drop" and _call_name(node) == "maximum" and len(node.args) == 2:
        yield node, segment(lines, node.args[1]), None
    elif kind == "where" and _call_name(node) == "where" and len(node.args) == 3:
        yield node, segment(lines, node.args[1]), None
    elif kind == "fill" and _neg_inf(node):
        yield node, "-1e4", "fill"


def mutants(source, kinds, functions=None):
    """Every edit of `kinds` the file allows inside its functions (`functions`: only those names, methods as
    `Class.method`), in the file's order, at most MAX_CANDIDATES; `compiles` says which are Python."""
    lines, tree = _lines(source), parse(source)
    found, seen = [], set()
    for scope, function in _functions(tree):
        if functions and scope not in functions and function.name not in functions:
            continue
        body = function.body[1:] if _docstring(function) else function.body
        counters = _loop_counters(function)
        for statement in body:
            for node in ast.walk(statement):
                for kind in kinds:
                    for target, text, _ in _candidates(kind, node, lines):
                        key = (target.lineno, target.col_offset, target.end_lineno, target.end_col_offset, text)
                        if key in seen or (target.lineno != target.end_lineno and kind != "remove"):
                            continue
                        if kind == "remove" and _assigned_names(target) & counters:
                            continue  # a while loop's counter: removed, the loop never ends (as anywhere)
                        seen.add(key)
                        found.append(_edit(kind, lines, target, text))
                        if len(found) >= MAX_CANDIDATES:
                            return found
    if "mask-after-softmax" in kinds:
        from checker.practice.defend_moves import mask_after_softmax, moved_source

        for where, call, wrapped in mask_after_softmax(lines, tree, functions):
            description = (f"if the mask of line {where.lineno} were applied after the softmax of line {call.lineno} "
                           "(the weights zeroed, the scores never filled)")
            found.append(_made("mask-after-softmax", lines, where, moved_source(lines, where, call, wrapped),
                               description))
    return found[:MAX_CANDIDATES]


def compiles(edit):
    """Whether a mutant is Python (compiled here, never run): one that is not is no question."""
    try:
        compile(edit.source, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _loop_counters(function):
    """The names a `while` loop's condition reads: removing their update makes any loop endless."""
    return {n.id for loop in ast.walk(function) if isinstance(loop, ast.While)
            for n in ast.walk(loop.test) if isinstance(n, ast.Name)}


def _assigned_names(node):
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def _made(kind, lines, node, new_source, description):
    """An Edit of a file changed in several places (`new_source`), said by `description`."""
    new_lines = new_source.splitlines(keepends=True)
    return Edit(kind, node.lineno, node.end_lineno, line_text(lines, node.lineno), line_text(new_lines, node.lineno),
                description, new_source, _changes(lines, new_lines))


def _changes(lines, new_lines):
    return tuple((number, new.decode("utf-8", "replace").rstrip("\r\n"))
                 for number, (old, new) in enumerate(zip(lines, new_lines), start=1) if old != new)


def _edit(kind, lines, node, text):
    new_source = replace(lines, node, text)
    new_lines = new_source.splitlines(keepends=True)
    old, new = line_text(lines, node.lineno), line_text(new_lines, node.lineno)
    if kind == "remove":
        span = f"lines {node.lineno}-{node.end_lineno}" if node.end_lineno > node.lineno else f"line {node.lineno}"
        description = f"if {span} (`{_short(old)}`) were removed"
    else:
        description = f"if `{_short(segment(lines, node))}` on line {node.lineno} were `{_short(text)}`"
    return Edit(kind, node.lineno, node.end_lineno, old, new, description, new_source, _changes(lines, new_lines))


def _short(text, width=48):
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def _functions(tree):
    """(scope name, function node) for every function and method of the module, nested ones included."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}.{item.name}", item


def _docstring(function):
    first = function.body[0] if function.body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)

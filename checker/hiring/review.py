"""What in a candidate's file a human should look at: reaching beyond what an attention kata needs, or
code the review page could not show as Python reads it.

Read by the trusted parent from the source (`ast`), never by running it: a flag for review, not a
failure. An attention kata needs NumPy, math and a few numeric or typing modules; files, processes,
the network, introspection and dynamic code are what an attempt to read the answers would use.
Bidirectional-text controls and other invisible characters (Trojan Source: an early `return` that reads
as a docstring) and code pushed past the width a reviewer sees are noted too. A file too deep to parse
is noted, never a crash.
"""

import ast
import re

from checker.present import escape

NUMERIC = {"numpy", "math", "cmath", "functools", "itertools", "typing", "dataclasses", "collections", "operator",
           "numbers", "fractions", "decimal", "statistics", "__future__", "abc", "enum", "string", "copy",
           "warnings", "heapq", "bisect", "torch"}  # torch: a kata may be written in PyTorch
CALLS = {"open", "exec", "eval", "compile", "__import__", "globals", "locals", "vars", "breakpoint", "input",
         "getattr", "setattr", "delattr"}
ATTRIBUTES = {"__subclasses__", "__globals__", "__code__", "__builtins__", "__closure__", "__loader__", "__spec__",
              "f_back", "f_globals", "f_locals", "tb_frame", "gi_frame", "__reduce__", "__reduce_ex__"}
NUMPY_IO = {"load", "loadtxt", "genfromtxt", "fromfile", "save", "savez", "savetxt", "memmap", "tofile", "DataSource"}


WIDTH = 120  # columns a reviewer sees of a line (tabs at 8); code beyond them is noted
LINES = re.compile(r"\r\n|\r|\n")  # where Python's tokenizer ends a line (str.splitlines ends more)


def reasons(source):
    """Why a human should look at this file: ["imports os", "calls open()", ...], [] for a plain kata."""
    text = source.decode("utf-8", errors="replace") if isinstance(source, bytes) else str(source)
    found = hidden_code(text)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return found  # it fails to load anyway
    except (RecursionError, MemoryError) as error:  # nested too deep for the parser: a person reads it
        return found + [f"too deeply nested for the review scan ({type(error).__name__}): read it in full"]
    return found + _reaching(tree)


def hidden_code(text):
    """Notes on what the page cannot show as Python reads it: invisible or reordering characters, and
    code beyond the visible width."""
    found, hidden, wide = [], {}, []
    for number, line in enumerate(LINES.split(text.removeprefix("\ufeff")), start=1):
        for char in escape.hidden_characters(line):
            hidden.setdefault(escape.name(char), []).append(number)
        width = len(line.rstrip().expandtabs(8))
        if width > WIDTH:
            wide.append((number, width))
    if hidden:
        lines = sorted({number for numbers in hidden.values() for number in numbers})
        found.append(f"hidden characters {', '.join(hidden)} (bidirectional-text controls or other invisible "
                     f"characters: the code may not read as it runs) on line{'s' if len(lines) > 1 else ''} "
                     f"{_few(lines)}")
    if wide:
        found.append(f"code beyond column {WIDTH} (off-screen on the page) on line{'s' if len(wide) > 1 else ''} "
                     + _few([f"{number} ({width} columns)" for number, width in wide]))
    return found


def _few(items, most=5):
    return ", ".join(map(str, items[:most])) + (f" and {len(items) - most} more" if len(items) > most else "")


def _reaching(tree):
    found = []
    modules = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names} | {"np", "numpy"}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        found += [f"patches {ast.unparse(target)}" for target in targets
                  if isinstance(target, ast.Attribute) and _root(target) in modules]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and node.args and isinstance(node.args[0], (ast.Name, ast.Attribute)) and _root(node.args[0]) in modules:
            found.append(f"patches {ast.unparse(node.args[0])} (setattr)")
        if isinstance(node, ast.Import):
            found += [f"imports {alias.name}" for alias in node.names if alias.name.split(".")[0] not in NUMERIC]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.split(".")[0] not in NUMERIC:
                found.append(f"imports {'.' * node.level}{module}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALLS:
            found.append(f"calls {node.func.id}()")
        elif isinstance(node, ast.Attribute):
            if node.attr in ATTRIBUTES:
                found.append(f"uses .{node.attr}")
            elif node.attr in NUMPY_IO and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy", "torch"):
                found.append(f"uses {node.value.id}.{node.attr} (file input/output)")
    return list(dict.fromkeys(found))


def _root(node):
    """The name an attribute chain starts from (np for np.testing.assert_allclose), or None."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None

"""What in a candidate's file a human should look at: reaching beyond what an attention kata needs.

Read by the trusted parent from the source (`ast`), never by running it: a flag for review, not a
failure. An attention kata needs NumPy, math and a few numeric or typing modules; files, processes,
the network, introspection and dynamic code are what an attempt to read the answers would use.
"""

import ast

NUMERIC = {"numpy", "math", "cmath", "functools", "itertools", "typing", "dataclasses", "collections", "operator",
           "numbers", "fractions", "decimal", "statistics", "__future__", "abc", "enum", "string", "copy",
           "warnings", "heapq", "bisect"}
CALLS = {"open", "exec", "eval", "compile", "__import__", "globals", "locals", "vars", "breakpoint", "input",
         "getattr", "setattr", "delattr"}
ATTRIBUTES = {"__subclasses__", "__globals__", "__code__", "__builtins__", "__closure__", "__loader__", "__spec__",
              "f_back", "f_globals", "f_locals", "tb_frame", "gi_frame", "__reduce__", "__reduce_ex__"}
NUMPY_IO = {"load", "loadtxt", "genfromtxt", "fromfile", "save", "savez", "savetxt", "memmap", "tofile", "DataSource"}


def reasons(source):
    """Why a human should look at this file: ["imports os", "calls open()", ...], [] for a plain kata."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []  # it fails to load anyway
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
            elif node.attr in NUMPY_IO and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy"):
                found.append(f"uses {node.value.id}.{node.attr} (file input/output)")
    return list(dict.fromkeys(found))


def _root(node):
    """The name an attribute chain starts from (np for np.testing.assert_allclose), or None."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None

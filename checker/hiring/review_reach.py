"""What a candidate's code reaches, read from its syntax tree: the review scan's second half (review.py).

An attention kata needs NumPy, math and a few numeric or typing modules. A file that reads the answers
would reach the interpreter, the file system or processes, and need not say so on an import line: it can
take `sys` through `typing.sys` or `np.os`, build `"sy" + "s"` for getattr, walk frames (`sys._getframe`,
`inspect`), call C (`ctypes`), list every object (`gc.get_objects`), run code it decodes from hex through
`exec`. So the scan resolves names through the file's own imports and attribute chains, folds strings
built from constant pieces, decodes hex and base64 constants that parse as Python and scans them too, and
names a call that runs a command as such. One walk, bounded by NODES: a file built to be slow is told
"scan stopped", never reported clean. It reads the tree only; nothing of the file runs.
"""

import ast
import base64
import binascii
import re

NUMERIC = {"numpy", "math", "cmath", "functools", "itertools", "typing", "dataclasses", "collections", "operator",
           "numbers", "fractions", "decimal", "statistics", "__future__", "abc", "enum", "string", "copy",
           "warnings", "heapq", "bisect", "torch"}  # torch: a kata may be written in PyTorch
CALLS = {"open", "exec", "eval", "compile", "__import__", "globals", "locals", "vars", "breakpoint", "input",
         "getattr", "setattr", "delattr"}
DYNAMIC = {"exec", "eval", "compile", "__import__", "import_module", "reload", "run_path", "run_module"}
ATTRIBUTES = {"__subclasses__", "__globals__", "__code__", "__builtins__", "__closure__", "__loader__", "__spec__",
              "f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame", "__reduce__",
              "__reduce_ex__", "__mro__", "__bases__", "__base__", "__getattribute__", "__dict__",
              "_getframe", "currentframe", "getouterframes", "get_objects", "get_referrers",
              "get_referents", "pythonapi", "cdll", "CDLL", "PyDLL", "memmove", "dlopen"}
# a module a kata never needs, wherever it is reached from (an attribute of typing, of numpy, a string)
MODULES = {"os", "sys", "subprocess", "ctypes", "builtins", "inspect", "gc", "importlib", "socket", "shutil", "pty",
           "posix", "nt", "_os", "marshal", "pickle", "runpy", "multiprocessing", "threading", "_thread", "signal",
           "mmap", "pathlib", "io", "_io", "tempfile", "resource", "fcntl", "urllib", "http", "zipimport"}
NUMPY_IO = {"load", "loadtxt", "genfromtxt", "fromfile", "save", "savez", "savetxt", "memmap", "tofile", "DataSource"}
SHELL = {"system", "popen", "Popen", "spawn", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve",
         "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp", "execl", "execle", "execlp", "execlpe", "execv",
         "execve", "execvp", "execvpe", "fork", "forkpty", "getoutput", "getstatusoutput", "check_output",
         "check_call", "startfile"}
SENSITIVE = MODULES | SHELL | DYNAMIC | ATTRIBUTES | {"open", "globals", "locals", "vars", "__builtins__"}
NODES = 20_000  # nodes the scan reads of a file (a kata's answer has 300 to 3,000); past it: "scan stopped"
DECODED = 4_096  # characters of a hex or base64 constant decoded and scanned, at most 8 constants a file
_HEX = re.compile(r"[0-9a-fA-F\s]{32,}")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]{40,}")


def reasons(tree, budget=NODES, depth=0):
    """Why a human should look at the file whose tree is `tree`: ["imports os", "runs a shell command
    (os.system)", ...], [] for a plain kata; `budget` nodes at most."""
    scan = _Scan(budget, depth)
    scan.walk(tree)
    return list(dict.fromkeys(scan.found))


class _Scan:
    def __init__(self, budget, depth):
        self.found, self.budget, self.depth, self.aliases, self.decoded = [], budget, depth, {}, 0
        self.strings = {}  # name = a constant expression: what exec(name) runs
        self.modules = {"np", "numpy", "torch"}  # names that stand for modules: patched attributes of them

    def walk(self, tree):
        for node in walk(tree, self.budget):  # the aliases first: a name may be used above its import
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._alias(node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if (value := fold(node.value)) is not None:
                    self.strings[node.targets[0].id] = value
        nodes = walk(tree, self.budget)
        for node in nodes:
            self._node(node)
        if nodes.stopped:  # the file's own top-level imports are still read: a statement each, no walk
            for node in getattr(tree, "body", []):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    self._node(node)
            self.found.append(f"scan stopped at {self.budget:,} nodes: the rest of the file was not scanned, "
                              "read it in full")

    def _alias(self, node):
        for alias in node.names:
            if isinstance(node, ast.Import):
                name = alias.asname or alias.name.split(".")[0]
                self.aliases[name] = alias.name if alias.asname else name
                self.modules.add(name)
            else:
                self.aliases[alias.asname or alias.name] = f"{'.' * node.level}{node.module or ''}.{alias.name}"

    def qualified(self, node):
        """`os.system` for `system` imported from os, `typing.sys.modules` for that chain; None if it does
        not start from a name."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        return ".".join([self.aliases.get(node.id, node.id)] + parts[::-1])

    def _node(self, node):
        found = self.found
        if isinstance(node, ast.Import):
            found += [f"imports {alias.name}" for alias in node.names if alias.name.split(".")[0] not in NUMERIC]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.split(".")[0] not in NUMERIC:
                found.append(f"imports {'.' * node.level}{module}")
            found += [f"reaches {alias.name} (from {module} import {alias.name})" for alias in node.names
                      if alias.name in SENSITIVE and module.split(".")[0] in NUMERIC]
        elif isinstance(node, ast.Name) and node.id in ("__builtins__", "__loader__", "__spec__"):
            found.append(f"uses {node.id}")
        elif isinstance(node, ast.Attribute):
            self._attribute(node)
        elif isinstance(node, ast.Call):
            self._call(node)
        elif isinstance(node, ast.Subscript):
            name = fold(node.slice)
            if name in SENSITIVE:
                found.append(f"reaches {name!r} by subscript ({_short(node)})")
        elif isinstance(node, (ast.BinOp, ast.JoinedStr)):
            name = fold(node)
            if name in SENSITIVE:
                found.append(f"builds the name {name!r} from pieces ({_short(node)})")
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            self._encoded(node)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [f"patches {ast.unparse(target)}" for target in targets
                      if isinstance(target, ast.Attribute) and _root(target) in self.modules]

    def _attribute(self, node):
        if node.attr in ATTRIBUTES:
            self.found.append(f"uses .{node.attr}")
        elif node.attr in MODULES:
            self.found.append(f"reaches module {node.attr} through {_short(node)}")
        elif node.attr in NUMPY_IO and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy", "torch"):
            self.found.append(f"uses {node.value.id}.{node.attr} (file input/output)")

    def _call(self, node):
        func, found = node.func, self.found
        name = self.qualified(func) or ""
        last = name.rsplit(".", 1)[-1]
        if isinstance(func, ast.Name) and func.id in CALLS:
            found.append(f"calls {func.id}()")
        if last in SHELL or name.split(".")[0].lstrip(".") in ("subprocess", "pty") and last != "":
            found.append(f"runs a shell command ({_short(func)})")
        elif last in DYNAMIC and (isinstance(func, ast.Attribute) or func.id in self.aliases):
            found.append(f"calls {last}() ({_short(func)})")
        if last in DYNAMIC | {"getattr", "hasattr", "attrgetter", "__getattribute__", "import_module"}:
            for arg in node.args[:2]:
                folded = fold(arg)
                shell = " (runs a shell command)" if folded in SHELL else ""
                if folded in SENSITIVE and not isinstance(arg, ast.Constant):
                    found.append(f"reaches {folded!r} through {last}() of a built name{shell}")
                elif folded in SENSITIVE and last not in ("exec", "eval", "compile"):
                    found.append(f"reaches {folded!r} through {last}(){shell}")
        if last in ("exec", "eval", "compile") and node.args:
            code = fold(node.args[0])
            if code is None and isinstance(node.args[0], ast.Name):
                code = self.strings.get(node.args[0].id)
            if code is None:
                found.append(f"runs code built at run time ({_short(node)})")
            elif self.depth < 2:
                try:
                    inner = reasons(ast.parse(code[:DECODED]), self.budget // 4, self.depth + 1)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    inner = []
                found += [f"in the code {last}() runs: {reason}" for reason in inner[:6]]
        if isinstance(func, ast.Name) and func.id == "setattr" and node.args and \
                isinstance(node.args[0], (ast.Name, ast.Attribute)) and _root(node.args[0]) in self.modules:
            found.append(f"patches {ast.unparse(node.args[0])} (setattr)")

    def _encoded(self, node):
        """A hex or base64 constant that decodes to Python: said, and its code scanned as the file's."""
        value = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
        if self.depth >= 2 or self.decoded >= 8 or len(value) < 32:
            return
        value = value[:DECODED]
        for how, pattern, decode in (("hex", _HEX, bytes.fromhex), ("base64", _BASE64, base64.b64decode)):
            if not pattern.fullmatch(value):
                continue
            self.decoded += 1
            try:
                tree = ast.parse(decode("".join(value.split())).decode("utf-8"))
            except (ValueError, SyntaxError, binascii.Error, UnicodeDecodeError, RecursionError, MemoryError):
                continue
            if any(isinstance(part, (ast.Call, ast.Import, ast.ImportFrom, ast.Attribute)) for part in ast.walk(tree)):
                inner = reasons(tree, self.budget // 4, self.depth + 1)
                self.found.append(f"holds Python code encoded in {how} (line {node.lineno})"
                                  + (f": {'; '.join(inner[:6])}" if inner else ""))
            return


class walk:
    """The nodes of `tree`, parents before children, `budget` at most; `stopped` once the budget cut it."""

    def __init__(self, tree, budget):
        self.todo, self.budget, self.stopped = [tree], budget, False

    def __iter__(self):
        seen = 0
        while self.todo:
            if seen >= self.budget:
                self.stopped = True
                return
            node = self.todo.pop()
            seen += 1
            yield node
            self.todo.extend(reversed(list(ast.iter_child_nodes(node))))


def fold(node, depth=0):
    """The string a constant expression builds ("sy" + "s", f"{'sy'}s", "".join(["sy", "s"]),
    bytes.fromhex("737973").decode()), or None."""
    if depth > 20:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = fold(node.left, depth + 1), fold(node.right, depth + 1)
        return left + right if left is not None and right is not None and len(left) + len(right) < 200 else None
    if isinstance(node, ast.JoinedStr):
        parts = [fold(value.value if isinstance(value, ast.FormattedValue) else value, depth + 1)
                 for value in node.values]
        return "".join(parts) if None not in parts else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner, attr = node.func.value, node.func.attr
        if attr == "join" and isinstance(owner, ast.Constant) and isinstance(owner.value, str) and node.args \
                and isinstance(node.args[0], (ast.List, ast.Tuple)):
            parts = [fold(item, depth + 1) for item in node.args[0].elts[:50]]
            return owner.value.join(parts) if None not in parts else None
        if attr == "decode" and isinstance(owner, ast.Call) and isinstance(owner.func, ast.Attribute) \
                and owner.func.attr == "fromhex" and owner.args and isinstance(owner.args[0], ast.Constant):
            try:
                return bytes.fromhex(str(owner.args[0].value)[:400]).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                return None
    return None


def _short(node, most=60):
    text = ast.unparse(node)
    return text if len(text) <= most else text[:most] + "…"


def _root(node):
    """The name an attribute chain starts from (np for np.testing.assert_allclose), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None

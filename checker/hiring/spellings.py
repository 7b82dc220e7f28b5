"""One spelling for each thing a copier can write two ways: what is not code dropped, NumPy's equivalent idioms
written one way (see canonical.py). Both rewrite a parsed file in place; its depth is already bounded.
"""

import ast
import copy

from checker.hiring.dataflow import BLOCK_FIELDS, walk

METHODS = frozenset({"sum", "max", "min", "mean", "any", "all", "argmax", "argmin", "cumsum", "prod", "std", "var",
                     "squeeze", "clip", "round", "repeat", "take", "copy", "ravel", "exp", "log"})
OPERATORS = {"add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div, "true_divide": ast.Div,
             "power": ast.Pow, "matmul": ast.MatMult, "dot": ast.MatMult}
RENAMED = {"amax": "max", "amin": "min", "permute_dims": "transpose", "swapaxes": "transpose",
           "matrix_transpose": "transpose", "concat": "concatenate"}
LIBRARIES = ("numpy", "math")
AXIS_SECOND = frozenset({"sum", "max", "min", "mean", "any", "all", "argmax", "argmin", "cumsum", "prod", "std",
                         "var", "concatenate", "stack", "sort", "argsort", "squeeze", "expand_dims", "flip",
                         "nanmax", "nanmin", "nansum", "logsumexp"})  # numpy.f(x, a) is numpy.f(x, axis=a)
SEQUENCE_FIRST = frozenset({"concatenate", "stack", "vstack", "hstack"})  # [a, b] or (a, b): one spelling


def prepared(tree, chosen):
    """Strip `tree` and write its NumPy idioms one way; `chosen`: the names the file binds."""
    aliases = {"np": "numpy"} if "np" not in chosen else {}
    _strip(tree, aliases)
    _Spellings(aliases).visit(tree)


def _strip(tree, aliases):
    """Drop docstrings and other bare constants, imports (their aliases noted), annotations, dead branches and
    statements after a return."""
    for node in walk(tree):
        if isinstance(node, ast.Import):
            aliases.update({(a.asname or a.name).split(".")[0]: a.name if a.asname else a.name.split(".")[0]
                            for a in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            aliases.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names if a.name != "*"})
        elif isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        for field in BLOCK_FIELDS[:3]:
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, _pruned(block))


def _pruned(block):
    kept = []
    for node in block:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            continue
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                continue
            node = ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)
        if isinstance(node, (ast.If, ast.While)) and isinstance(node.test, ast.Constant):
            kept += _pruned(node.body if node.test.value and isinstance(node, ast.If) else node.orelse)
            continue
        kept.append(node)
        if isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            break
    return kept


_COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)


def _shape(node):
    """What an operand is, whatever its names: the order of commutative operands."""
    return " ".join(type(part).__name__ + (repr(part.value) if isinstance(part, ast.Constant) else
                                           part.attr if isinstance(part, ast.Attribute) else "")
                    for part in walk(node))


def _numpy(name):
    return ast.Attribute(ast.Name("numpy", ast.Load()), name, ast.Load())


def _library(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in LIBRARIES


class _Spellings(ast.NodeTransformer):
    """One spelling for each NumPy idiom a copier can swap for another (and `x op= y` as `x = x op y`)."""

    def __init__(self, aliases):
        self.aliases = aliases

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.aliases:
            parts = self.aliases[node.id].split(".")
            found = ast.Name(parts[0], ast.Load())
            for part in parts[1:]:
                found = ast.Attribute(found, part, ast.Load())
            return ast.copy_location(found, node)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == "math":
            node.value = ast.Name("numpy", ast.Load())
        if node.attr == "T" and isinstance(node.ctx, ast.Load):
            return ast.Call(_numpy("transpose"), [node.value], [])
        if _library(node.value) and node.attr in RENAMED:
            node.attr = RENAMED[node.attr]
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)  # x[:, None], x[..., None], x[None, :]: one new axis, written as expand_dims
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        plain = all(isinstance(p, ast.Slice) and not (p.lower or p.upper or p.step) or
                    isinstance(p, ast.Constant) and p.value in (None, Ellipsis) for p in parts)
        if isinstance(node.ctx, ast.Load) and plain and \
                sum(isinstance(p, ast.Constant) and p.value is None for p in parts) == 1:
            return ast.Call(_numpy("expand_dims"), [node.value], [])
        return node

    def visit_Assign(self, node):
        self.generic_visit(node)  # a, b = x, y is a = x; b = y when y does not read a (nor a later one b)
        target, value = node.targets[0], node.value
        if len(node.targets) == 1 and isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and \
                len(target.elts) == len(value.elts) and all(isinstance(t, ast.Name) for t in target.elts):
            names = [t.id for t in target.elts]
            if len(set(names)) == len(names) and not any(
                    isinstance(part, ast.Name) and part.id in names[:index]
                    for index, item in enumerate(value.elts) for part in walk(item)):
                return [ast.copy_location(ast.Assign([t], v), node) for t, v in zip(target.elts, value.elts)]
        if len(node.targets) == 1 and isinstance(target, ast.Name) and isinstance(value, ast.IfExp):
            same = [isinstance(side, ast.Name) and side.id == target.id for side in (value.body, value.orelse)]
            if same[0] != same[1]:  # x = a if c else x is: if c: x = a (and x = x if c else a: if not c: x = a)
                test = value.test if same[1] else ast.UnaryOp(ast.Not(), value.test)
                assign = ast.Assign([target], value.orelse if same[0] else value.body)
                return ast.copy_location(ast.If(test, [ast.copy_location(assign, node)], []), node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        read = copy.deepcopy(node.target)
        for part in ast.walk(read):
            if hasattr(part, "ctx"):
                part.ctx = ast.Load()
        return ast.copy_location(ast.Assign([node.target], ast.BinOp(read, node.op, node.value)), node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and node.right.value == 0.5:
            return ast.Call(_numpy("sqrt"), [node.left], [])
        if isinstance(node.op, _COMMUTATIVE) and _shape(node.right) < _shape(node.left):
            node.left, node.right = node.right, node.left  # `b * a` is `a * b`
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func, args, keywords = node.func, node.args, node.keywords
        if not isinstance(func, ast.Attribute):
            return node
        if _library(func.value):
            return self._library_call(node)
        if func.attr == "dot" and len(args) == 1 and not keywords:
            return ast.BinOp(func.value, ast.MatMult(), args[0])
        if func.attr in ("transpose", "swapaxes"):
            return ast.Call(_numpy("transpose"), [func.value], [])
        if func.attr in METHODS:
            return self._library_call(ast.Call(_numpy(func.attr), [func.value, *args], keywords))
        return node

    @staticmethod
    def _library_call(node):
        """numpy.f(...) in one spelling: operators as operators, the axis as a keyword, keywords sorted."""
        func, args, keywords = node.func, node.args, node.keywords
        if func.attr in OPERATORS and len(args) == 2 and not keywords:
            return ast.BinOp(args[0], OPERATORS[func.attr](), args[1])
        if func.attr in ("transpose", "expand_dims") and args:
            node.args, node.keywords = args[:1], []  # the axes: a copier's free choice on 2-D
            return node
        if func.attr in AXIS_SECOND and len(args) == 2:
            node.args, node.keywords = args[:1], [ast.keyword("axis", args[1])] + keywords
        if func.attr in SEQUENCE_FIRST and node.args and isinstance(node.args[0], ast.Tuple):
            node.args[0] = ast.List(node.args[0].elts, ast.Load())
        node.keywords = sorted(node.keywords, key=lambda keyword: keyword.arg or "")
        return node

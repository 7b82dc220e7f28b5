"""Small helpers written where they are called, before similarity compares two files (see canonical.py).

A copier pulls a line out into a helper (`_project(x, w)` for `split_heads(x @ w, h)`) or folds one back in.
A module-level function whose body (docstring gone) is one `return` of an expression, with plain
positional parameters, is a small helper: each call `f(a, b)` with as many positional arguments becomes
the returned expression with the parameters replaced by the arguments. A helper of at most BODY plain
statements ending in its only `return` is inlined where a statement `a, b = f(x, y)` unpacks what it hands
back (a function returning one array is the kata's contract as often as a helper): its parameters
assigned, its body, then `a, b = <what it returned>`. A helper's definition is dropped once
every reference to it was inlined. A helper that calls a helper is inlined too, up to
ROUNDS deep; a call site is inlined only while the statement stays below dataflow.MAX_HEIGHT. Linear in
the file per round.
"""

import ast
import copy

from checker.hiring.dataflow import MAX_HEIGHT, height, walk

ROUNDS = 3  # helpers calling helpers, inlined this deep
BODY = 12  # statements of a helper inlined where a statement calls it (`a, b = helper(x)`)


def inline(tree):
    """Inline the small helpers of `tree` (a parsed, stripped module) in place."""
    for _ in range(ROUNDS):
        helpers = _helpers(tree)
        if not helpers or not _round(tree, helpers):
            break
    for _ in range(ROUNDS):
        if not _statements(tree, _bodies(tree)):
            return


def _bodies(tree):
    """{name: (parameters, statements)} of the module's functions a statement may be replaced by."""
    found = {}
    for node in tree.body:
        args = node.args if isinstance(node, ast.FunctionDef) else None
        if args and not (node.decorator_list or args.vararg or args.kwarg or args.kwonlyargs or args.defaults
                         or args.posonlyargs) and 1 < len(node.body) <= BODY \
                and isinstance(node.body[-1], ast.Return) and node.body[-1].value is not None \
                and not any(isinstance(part, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global,
                                              ast.Nonlocal, ast.FunctionDef, ast.ClassDef, ast.Lambda))
                            for statement in node.body[:-1] for part in walk(statement)):
            found[node.name] = ([arg.arg for arg in args.args], node.body)
    return found


def _statements(tree, bodies):
    """Replace each `a, b = helper(args)` statement by the helper's body; whether any was."""
    done = 0
    for holder in [node for node in walk(tree) if isinstance(getattr(node, "body", None), list)]:
        if isinstance(holder, ast.FunctionDef) and holder.name in bodies:
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(holder, field, None)
            if not isinstance(block, list):
                continue
            out = []
            for node in block:
                call = node.value if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Tuple) else None  # a helper that hands back several
                name = call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else None
                if name in bodies and len(call.args) == len(bodies[name][0]) and not call.keywords \
                        and not any(isinstance(a, ast.Starred) for a in call.args):
                    parameters, body = bodies[name]
                    out += [ast.copy_location(ast.Assign([ast.Name(p, ast.Store())], a), node)
                            for p, a in zip(parameters, call.args)]
                    out += [ast.copy_location(copy.deepcopy(s), node) for s in body[:-1]]
                    out.append(ast.copy_location(ast.Assign(node.targets, copy.deepcopy(body[-1].value)), node))
                    done += 1
                else:
                    out.append(node)
            setattr(holder, field, out)
    if done:
        used = {part.id for node in tree.body if not (isinstance(node, ast.FunctionDef) and node.name in bodies)
                for part in walk(node) if isinstance(part, ast.Name)}
        tree.body = [node for node in tree.body
                     if not (isinstance(node, ast.FunctionDef) and node.name in bodies and node.name not in used)]
    return done


def _helpers(tree):
    found = {}
    for node in tree.body:
        args = node.args if isinstance(node, ast.FunctionDef) else None
        if args and not (node.decorator_list or args.vararg or args.kwarg or args.kwonlyargs or args.defaults
                         or args.posonlyargs) and len(node.body) == 1 and isinstance(node.body[0], ast.Return) \
                and node.body[0].value is not None:
            found[node.name] = ([arg.arg for arg in args.args], node.body[0].value)
    return found


class _Calls(ast.NodeTransformer):
    def __init__(self, helpers):
        self.helpers, self.done, self.left = helpers, 0, set()

    def visit_Call(self, node):
        self.generic_visit(node)
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in self.helpers:
            return node
        parameters, body = self.helpers[name]
        if node.keywords or len(node.args) != len(parameters) or any(isinstance(a, ast.Starred) for a in node.args):
            self.left.add(name)
            return node
        given = dict(zip(parameters, node.args))
        written = _Substitute(given).visit(copy.deepcopy(body))
        self.done += 1
        return written


class _Substitute(ast.NodeTransformer):
    def __init__(self, given):
        self.given = given

    def visit_Name(self, node):
        return copy.deepcopy(self.given[node.id]) if node.id in self.given else node


def _round(tree, helpers):
    """One round of inlining over every statement outside the helpers; whether anything was inlined."""
    done, left = 0, set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in helpers:
            continue
        for statement in [part for part in walk(node) if isinstance(part, ast.stmt)]:
            for field in ("value", "test", "iter"):
                expression = getattr(statement, field, None)
                if not isinstance(expression, ast.expr) or not any(
                        isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and part.func.id in helpers
                        for part in walk(expression)):
                    continue
                calls = _Calls(helpers)
                written = calls.visit(copy.deepcopy(expression))
                left |= calls.left
                if calls.done and height(written) <= MAX_HEIGHT:
                    setattr(statement, field, written)
                    done += calls.done
                elif calls.done:
                    left |= set(helpers)
    used = {part.id for node in tree.body if not (isinstance(node, ast.FunctionDef) and node.name in helpers)
            for part in walk(node) if isinstance(part, ast.Name)} | left
    if done:
        tree.body = [node for node in tree.body
                     if not (isinstance(node, ast.FunctionDef) and node.name in helpers and node.name not in used)]
    return done

"""Mechanical copies of the project's own correct files, as a copier makes them (seeded), for tests/test_similarity.py.

Every class renames the local variables and helper functions and rewrites the layout; then "dead" adds an
unused assignment or two, "reordered" moves independent statements (inside functions) and shuffles the
top-level functions, "numpy" swaps NumPy spellings (`a @ b` -> `np.matmul(a, b)`, the `x.T` forms, methods
and functions, a split expression), and "all" does the three. Its own data-flow reading is more cautious
than the detector's (a write through a subscript or a mutating call keeps its place), so a copy computes
what its original computes: `outputs` runs both on the kata's public checks to show it.
"""

import ast
import builtins
import copy
import random
import types

import numpy as np

CLASSES = ("renamed", "dead", "reordered", "numpy", "all")
_WORDS = ("tmp", "val", "res", "acc", "buf", "arr", "data", "item", "mat", "cur", "out_", "part", "aux", "z")
_STAYS = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Expr, ast.Global, ast.Nonlocal, ast.Assert,
          ast.Delete, ast.Try, ast.Import, ast.ImportFrom, ast.Yield, ast.YieldFrom, ast.Await)
_DEFS = (ast.FunctionDef, ast.ClassDef)


def make(source, kind, seed, keep):
    """A copy of `source` of class `kind`; `keep`: the names the kata's contract fixes (its functions)."""
    rng = random.Random(f"{kind}:{seed}")
    tree = ast.parse(source)
    _rename(tree, rng, keep)
    if kind in ("numpy", "all"):
        _spell(tree, rng)
    if kind in ("dead", "all"):
        _dead(tree, rng)
    if kind in ("reordered", "all"):
        _reorder(tree, rng)
    text = "\n".join(_indent(line) for line in ast.unparse(ast.fix_missing_locations(tree)).splitlines())
    return f"# {kind} copy {seed}\n{text}\n"


def _indent(line):
    stripped = line.lstrip(" ")
    return " " * ((len(line) - len(stripped)) // 2) + stripped


def _rename(tree, rng, keep):
    nodes = list(ast.walk(tree))
    parameters = {node.arg for node in nodes if isinstance(node, ast.arg)}
    stored = {node.id for node in nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    top = {target.id for node in tree.body if isinstance(node, ast.Assign) for target in node.targets
           if isinstance(target, ast.Name)}
    helpers = {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name not in keep}
    names = sorted((stored - top | helpers) - parameters - set(dir(builtins)) - set(keep))
    mapping = {name: f"{rng.choice(_WORDS)}{index}" for index, name in enumerate(names)}
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in mapping:
            node.id = mapping[node.id]
        elif isinstance(node, ast.FunctionDef) and node.name in mapping:
            node.name = mapping[node.name]


def _functions(tree):
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]


def _dead(tree, rng):
    functions = _functions(tree)
    templates = ("{} = {} * {}", "{} = np.zeros({})", "{} = len(range({}))", "{} = ({}, {})", "{} = 'step {}'")
    for number in range(rng.randint(1, 2)):
        body = rng.choice(functions).body
        last = next((i for i, node in enumerate(body) if isinstance(node, ast.Return)), len(body))
        template = rng.choice(templates)
        text = template.format(f"unused_{number}", *[rng.randint(2, 9) for _ in range(template.count("{}") - 1)])
        body.insert(rng.randint(0, last), ast.parse(text).body[0])


def _effects(node, closures):
    """(reads, writes, stays) of a statement; `closures`: what each function defined beside it reads when called."""
    reads, writes, stays = set(), set(), isinstance(node, _STAYS)
    for part in ast.walk(node) if not isinstance(node, _DEFS) else []:
        if isinstance(part, ast.Name):
            (reads if isinstance(part.ctx, ast.Load) else writes).add(part.id)
            reads |= closures.get(part.id, set()) if isinstance(part.ctx, ast.Load) else set()
        elif isinstance(part, (ast.Subscript, ast.Attribute)) and not isinstance(part.ctx, ast.Load):
            stays = True
        elif isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and \
                part.func.attr not in ("sum", "max", "min", "mean", "reshape", "astype", "transpose", "swapaxes"):
            stays = stays or not (isinstance(part.func.value, ast.Name) and part.func.value.id == "np")
        stays = stays or isinstance(part, _STAYS + _DEFS)
    if isinstance(node, _DEFS):
        writes.add(node.name)
    return reads, writes, stays


def _shuffled_block(block, rng):
    closures = {node.name: {part.id for part in ast.walk(node) if isinstance(part, ast.Name)}
                for node in block if isinstance(node, ast.FunctionDef)}
    effects = [_effects(node, closures) for node in block]
    before = [set() for _ in block]
    for j, (reads_j, writes_j, stays_j) in enumerate(effects):
        for i in range(j):
            reads_i, writes_i, stays_i = effects[i]
            if stays_i or stays_j or writes_i & (reads_j | writes_j) or reads_i & writes_j:
                before[j].add(i)
    order, placed = [], set()
    while len(order) < len(block):
        ready = [j for j in range(len(block)) if j not in placed and before[j] <= placed]
        pick = rng.choice(ready)
        order.append(pick)
        placed.add(pick)
    return [block[j] for j in order]


def _reorder(tree, rng):
    for function in _functions(tree):
        for node in [function] + [n for n in ast.walk(function) if isinstance(n, (ast.If, ast.For, ast.With))]:
            node.body = _shuffled_block(node.body, rng)
    for holder in [tree] + [node for node in tree.body if isinstance(node, ast.ClassDef)]:
        slots = [i for i, node in enumerate(holder.body) if isinstance(node, ast.FunctionDef)]
        moved = [holder.body[i] for i in slots]
        rng.shuffle(moved)
        for i, node in zip(slots, moved):
            holder.body[i] = node


def _np(name):
    return ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load())


class _Spelling(ast.NodeTransformer):
    def __init__(self, rng):
        self.rng, self.done = rng, 0

    def maybe(self):
        if self.rng.random() < 0.6:
            self.done += 1
            return True
        return False

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult) and self.maybe():
            return ast.Call(_np("matmul"), [node.left, node.right], [])
        if isinstance(node.op, ast.Div) and self.maybe():
            return ast.Call(_np("divide"), [node.left, node.right], [])
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "T" and isinstance(node.ctx, ast.Load) and self.maybe():
            return ast.Call(_np("transpose"), [node.value], []) if self.rng.random() < 0.5 else \
                ast.Call(ast.Attribute(node.value, "transpose", ast.Load()), [], [])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, ast.Attribute):
            return node
        library = isinstance(func.value, ast.Name) and func.value.id == "np"
        if library and func.attr == "swapaxes" and len(node.args) == 3 and self.maybe():
            return ast.Call(ast.Attribute(node.args[0], "swapaxes", ast.Load()), node.args[1:], node.keywords)
        if not library and func.attr in ("swapaxes", "sum", "max", "min", "mean") and self.maybe():
            return ast.Call(_np(func.attr), [func.value, *node.args], node.keywords)
        return node


def _spell(tree, rng):
    spelling = _Spelling(rng)
    spelling.visit(tree)
    for function in _functions(tree):
        _split(function, rng)


def _split(function, rng):
    """Hoist one sub-expression of an assignment or return into a temporary just before it."""
    sites = [(index, node) for index, node in enumerate(function.body)
             if isinstance(node, (ast.Assign, ast.Return)) and node.value is not None]
    rng.shuffle(sites)
    for index, statement in sites:
        parts = [part for part in _plain_parts(statement.value) if isinstance(part[1], (ast.Call, ast.BinOp))]
        if parts:
            holder, part, field, position = rng.choice(parts)
            name = f"step{rng.randint(10, 99)}"
            if position is None:
                setattr(holder, field, ast.Name(name, ast.Load()))
            else:
                getattr(holder, field)[position] = ast.Name(name, ast.Load())
            function.body.insert(index, ast.Assign([ast.Name(name, ast.Store())], part))
            return


def _plain_parts(value):
    """(parent, child, field, position) of sub-expressions evaluated unconditionally, outside any scope."""
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Lambda, ast.IfExp, ast.BoolOp, ast.ListComp, ast.GeneratorExp, ast.DictComp,
                             ast.SetComp)):
            continue
        for field, child in ast.iter_fields(node):
            for position, item in (enumerate(child) if isinstance(child, list) else [(None, child)]):
                if isinstance(item, ast.expr):
                    found.append((node, item, field, position))
                    stack.append(item)
    return found


# --- what a file computes -------------------------------------------------------------------------------

def outputs(source, kata):
    """Everything the kata's public checks got back from `source`'s functions, on fixed inputs."""
    import checker.hiring.pack_check as pack_check

    module = types.ModuleType("copy_under_test")
    exec(compile(source, "<copy>", "exec"), vars(module))  # the project's own files, not candidate code
    recorded = []

    def recording(function):
        def call(*args, **kwargs):
            result = function(*args, **kwargs)
            recorded.append(result)
            return result
        return call

    proxy = types.SimpleNamespace(**{name: recording(value) if isinstance(value, types.FunctionType) else value
                                     for name, value in vars(module).items()})
    public = kata.part("public")
    pack_check.RANDOM, saved = np.random.default_rng(0), pack_check.RANDOM
    try:
        for dims in public.cases(random.Random(0)):
            public.check(proxy, dims)
    finally:
        pack_check.RANDOM = saved
    return recorded


def same(a, b):
    """Two `outputs` are equal (NaN equal to NaN)."""
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    try:
        return np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
    except TypeError:
        return a == b

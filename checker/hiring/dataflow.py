"""The data flow of a parsed kata file: temporaries read once inlined, assignments nobody reads dropped, and
each block's statements in one canonical order among those their data flow allows (see canonical.py).

`simplify(tree)` rewrites the tree in place; `ordered(tree.body, collapse)` returns its statements as
(source line ranges, tokens) units in canonical order. The caller has already bounded the tree's depth
(canonical._guard), so the recursive walks here stay shallow; every loop over statements or names is
linear in the file.
"""

import ast
import copy
import heapq

BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "sort", "fill", "put",
                      "resize", "setdefault", "add", "discard", "reverse", "itemset", "setflags"})
MAX_HEIGHT = 40  # expression nesting of one statement beyond which canonical.py sets it aside (and none is inlined)
INLINE_BUDGET = 200_000  # nodes visited while inlining, per file
_BARRIERS = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Expr, ast.Global, ast.Nonlocal, ast.Assert,
             ast.Delete, ast.Try, ast.Import, ast.ImportFrom)
_ESCAPES = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await, ast.Global,
            ast.Nonlocal)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_NESTED = (ast.stmt, ast.excepthandler)


def children(node):
    """The child nodes of `node` (ast.iter_child_nodes without its generators: this is the hot loop)."""
    found = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found += [item for item in value if isinstance(item, ast.AST)]
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def walk(node):
    """Every node under `node` (itself included), iteratively, in no particular order."""
    found, stack = [], [node]
    while stack:
        node = stack.pop()
        found.append(node)
        stack += children(node)
    return found


def height(node):
    """How deep the expressions of one statement nest (its own blocks not counted), iteratively."""
    best, stack = 0, [(child, 1) for child in children(node) if not isinstance(child, _NESTED)]
    while stack:
        node, depth = stack.pop()
        best = max(best, depth)
        stack += [(child, depth + 1) for child in children(node) if not isinstance(child, _NESTED)]
    return best


def placeholder():
    return ast.Assign(targets=[ast.Name("V", ast.Store())], value=ast.Constant(0))


def chosen_names(tree):
    """(names the file binds, attribute names it assigns, its parameters): what a renaming copier may change."""
    names, attributes, parameters = set(), set(), set()
    for node in walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
            parameters.add(node.arg)
        elif isinstance(node, (*_DEFS, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            attributes.add(node.attr)
    return names, attributes, parameters


def simplify(tree):
    """Inline the temporaries read once and drop the assignments nobody reads, in every function of `tree`."""
    budget = [INLINE_BUDGET]
    for scope in [node for node in walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        _simplify(scope, budget)  # a module's own statements are defs and constants: nothing to inline


# --- temporaries read once, assignments nobody reads ------------------------------------------------

def _scope_blocks(scope):
    """Every statement list of `scope` outside the functions and classes nested in it."""
    stack, blocks = [scope], []
    while stack:
        holder = stack.pop()
        for field in BLOCK_FIELDS:
            block = getattr(holder, field, None)
            if isinstance(block, list):
                if block and isinstance(block[0], ast.stmt):
                    blocks.append((holder, field))
                stack += [node for node in block if not isinstance(node, _DEFS)]
    return blocks


def _counts(scope):
    """(loads, stores, the one read of each name read once, parents) over `scope`, in one walk."""
    loads, stores, read, parents = {}, {}, {}, {}
    stack = [scope]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
        if isinstance(node, ast.Name):
            table = loads if isinstance(node.ctx, ast.Load) else stores
            table[node.id] = table.get(node.id, 0) + 1
            if table is loads:
                read[node.id] = node
        elif isinstance(node, (ast.arg, ast.Global, ast.Nonlocal)):
            for name in getattr(node, "names", [getattr(node, "arg", None)]):
                stores[name] = stores.get(name, 0) + 2  # never inlined nor dropped
    return loads, stores, read, parents


def _simplify(scope, budget):
    for _ in range(4):
        loads, stores, read, parents = _counts(scope)
        dropped = False
        for holder, field in _scope_blocks(scope):
            block = _inlined(getattr(holder, field), loads, stores, read, parents, budget)
            kept = [node for node in block if not _dead(node, loads)]
            dropped |= len(kept) != len(block)
            setattr(holder, field, kept)
        if not dropped:  # only a dropped assignment can leave another one unread or read once
            return


def _inlined(block, loads, stores, read, parents, budget):
    """The block with each temporary that is assigned once and read once, in a later statement of the
    block, written where it is read."""
    position = {id(node): index for index, node in enumerate(block)}
    out = list(block)
    for index, node in enumerate(block):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        if loads.get(name) != 1 or stores.get(name) != 1 or budget[0] <= 0:
            continue
        use, statement, host = read[name], None, None
        climb = use
        while id(climb) in parents and host is None:
            climb = parents[id(climb)]
            budget[0] -= 1
            if statement is None and isinstance(climb, ast.stmt):
                statement = climb
            host = position.get(id(climb))
        if host is None or host <= index or out[host] is None or isinstance(out[host], _DEFS) \
                or height(statement) + height(node) > MAX_HEIGHT \
                or any(isinstance(part, (ast.NamedExpr, ast.Yield, ast.Await)) for part in walk(node.value)):
            continue
        holder = parents[id(use)]
        for field, child in ast.iter_fields(holder):
            if child is use:
                setattr(holder, field, node.value)
            elif isinstance(child, list) and any(item is use for item in child):
                child[[item is use for item in child].index(True)] = node.value
        parents[id(node.value)] = holder
        out[host].similarity_lines = getattr(out[host], "similarity_lines", ()) + (
            (node.lineno, node.end_lineno or node.lineno),) + getattr(node, "similarity_lines", ())
        out[index] = None
    return [node for node in out if node is not None]


def _dead(node, loads):
    if not isinstance(node, ast.Assign):
        return False
    targets = list(node.targets)
    names = []
    while targets:
        target = targets.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            targets += target.elts
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
        elif isinstance(target, ast.Name):
            names.append(target.id)
        else:
            return False
    return all(not loads.get(name) for name in names)


# --- one canonical order among those the data flow allows --------------------------------------------

def ordered(block, collapse):
    """[(((first, last), ...), tokens)] of `block`'s statements in canonical order; `collapse(text)` tokenises."""
    return _block(block, collapse)


def _block(block, collapse):
    units = [_statement(node, collapse) for node in block]
    keys = [tuple(token for _, tokens in unit for token in tokens) for unit in units]
    return [part for index in _order(block, keys) for part in units[index]]


def _statement(node, collapse):
    lines = ((node.lineno, node.end_lineno or node.lineno),) + getattr(node, "similarity_lines", ())
    blocks = [field for field in ("body", "orelse", "finalbody") if getattr(node, field, None)]
    handlers = getattr(node, "handlers", None) or []
    if isinstance(node, ast.Match) or not (blocks or handlers):
        return [(lines, collapse(ast.unparse(node)))]
    head = copy.copy(node)
    for field in ("body", "orelse", "finalbody", "handlers"):
        if hasattr(head, field):
            setattr(head, field, [])
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    inner = [child.lineno for field in blocks for child in getattr(node, field)]
    units = [(((start, max(start, min(inner, default=start) - 1)),), collapse(ast.unparse(head)))]
    for field in blocks[:1]:
        units += [(lines[:1], ["{"])] + _block(getattr(node, field), collapse) + [(lines[:1], ["}"])]
    for handler in handlers:
        top = copy.copy(handler)
        top.body = []
        units += [(((handler.lineno, handler.lineno),), collapse(ast.unparse(top)) + ["{"])]
        units += _block(handler.body, collapse) + [(lines[:1], ["}"])]
    for field in blocks[1:]:
        units += [(lines[:1], [field, "{"])] + _block(getattr(node, field), collapse) + [(lines[:1], ["}"])]
    return units


def effects(node):
    """(names read, names written, barrier) of one statement: what orders it among its neighbours. A def
    only binds its name (its body runs later); a barrier (return, raise, a bare call, ...) keeps its place."""
    reads, writes, barrier = set(), set(), isinstance(node, _BARRIERS)
    if isinstance(node, _DEFS):
        writes.add(node.name)
        stack = list(node.decorator_list) + list(getattr(node, "bases", []))
        if not isinstance(node, ast.ClassDef):
            stack += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
    else:
        stack = [node]
    while stack:
        part = stack.pop()
        if isinstance(part, ast.Name):
            (reads if isinstance(part.ctx, ast.Load) else writes).add(part.id)
        elif isinstance(part, (ast.Attribute, ast.Subscript)) and not isinstance(part.ctx, ast.Load) or (
                isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and part.func.attr in MUTATORS):
            root = part.func if isinstance(part, ast.Call) else part
            while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if isinstance(root, ast.Name):
                reads.add(root.id)
                writes.add(root.id)
        elif isinstance(part, _ESCAPES):
            barrier = True
        if isinstance(part, _DEFS) and part is not node:
            writes.add(part.name)
            continue
        stack += children(part)
    return reads, writes, barrier


def _order(block, keys):
    """The indices of `block` in topological order of its data flow, the smallest key first among the ready."""
    after = [[] for _ in block]
    waiting = [0] * len(block)
    last_write, readers = {}, {}
    for index, node in enumerate(block):
        reads, writes, barrier = effects(node)
        reads.add("\0")  # every statement stays on its side of a barrier
        if barrier:
            writes.add("\0")
        before = {last_write[name] for name in reads | writes if name in last_write}
        before |= {reader for name in writes for reader in readers.get(name, ())}
        before.discard(index)
        for earlier in before:
            after[earlier].append(index)
        waiting[index] = len(before)
        for name in writes:
            last_write[name], readers[name] = index, []
        for name in reads - writes:
            readers.setdefault(name, []).append(index)
    ready = [(keys[index], index) for index in range(len(block)) if not waiting[index]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, index = heapq.heappop(ready)
        order.append(index)
        for later in after[index]:
            waiting[later] -= 1
            if not waiting[later]:
                heapq.heappush(ready, (keys[later], later))
    return order

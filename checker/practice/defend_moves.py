"""The edits of `kata defend` that move what a statement does rather than change one node: the mask applied after
the softmax (catalogued `mask-after-softmax`): the line that fills the blocked scores becomes `pass`, and the
softmax of those scores is wrapped in `where(mask, softmax(...), 0.0)`, both on the parent's bytes and every line
number kept. The edit is found by shape (an assignment `s = where(m, s, fill)`, then a softmax call that takes
`s`), never by a name the learner must have used."""

import ast

from checker.practice.defend_edits import _call_name, _functions, replace, segment


def mask_after_softmax(lines, tree, functions=None):
    """[(where statement, softmax call, the wrapped call's text)] of the file, at most one a where statement."""
    found = []
    for scope, function in _functions(tree):
        if functions and scope not in functions and function.name not in functions:
            continue
        for body in _bodies(function):
            for index, where in enumerate(body):
                name = _filled(where) if isinstance(where, ast.Assign) else None
                if name is None:
                    continue
                later = [call for statement in body[index + 1:] for call in ast.walk(statement)
                         if isinstance(call, ast.Call) and "softmax" in (_call_name(call) or "").lower()
                         and call.lineno == call.end_lineno
                         and any(isinstance(a, ast.Name) and a.id == name for a in call.args)]
                if later:
                    mask = segment(lines, where.value.args[0])
                    wrapped = f"{segment(lines, where.value.func)}({mask}, {segment(lines, later[0])}, 0.0)"
                    found.append((where, later[0], wrapped))
    return found


def _bodies(function):
    """Every statement list of a function (its body, each branch and loop body): the mask and its softmax must
    share one, so the moved mask applies exactly where the fill did."""
    for node in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def _filled(statement):
    """`s` for `s = where(mask, s, fill)` on one line, else None."""
    value = statement.value
    if (len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name) or _call_name(value) != "where"
            or len(value.args) != 3 or statement.lineno != statement.end_lineno):
        return None
    name = statement.targets[0].id
    return name if isinstance(value.args[1], ast.Name) and value.args[1].id == name else None


def moved_source(lines, where, call, wrapped):
    """The file with the where statement as `pass` and the softmax call wrapped (a later line: its offsets hold)."""
    first = replace(lines, where, "pass").splitlines(keepends=True)
    return replace(first, call, wrapped)

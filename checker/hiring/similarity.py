"""Pairs of candidates whose kata files are near-identical once names, comments and formatting are set aside.

Each file is read as Python (`ast`, never run): docstrings, imports and every function or class the
candidate left as the stub gave it are dropped, every name the file chooses (variables, arguments,
helpers, attributes of its own objects) is replaced by its order of first appearance in its top-level
statement, and the rest is written out again by `ast.unparse` and cut into tokens. Two files' token
lists are compared with `difflib.SequenceMatcher`: 1.0 is the same code under other names and layout. A pair at or above
THRESHOLD is shown to a human with its figure; it is never a verdict (a kata has few good answers).
Files with fewer than MIN_TOKENS tokens of their own are not compared (kata 01's answer is one line
whoever writes it), nor katas whose stub is a planted file to fix (kata 10: every fix converges on
the clean decoder).
"""

import ast
import builtins
import difflib
import io
import tokenize
from dataclasses import dataclass
from functools import lru_cache

from checker import catalog

THRESHOLD = 0.9  # measured on the katas' independent correct variants: see tests/test_report.py
MIN_TOKENS = 60
_BUILTINS = frozenset(dir(builtins)) | {"self", "cls"}


@dataclass(frozen=True)
class Pair:
    kata: str
    a: str  # a candidate's path
    b: str
    similarity: float  # 0..1


def flagged(files, threshold=THRESHOLD):
    """Every pair of candidates (across `files`: {candidate: {kata id: bytes or None}}) whose files for one
    kata are at least `threshold` similar, most similar first."""
    pairs = []
    names = sorted(files)
    for kata in sorted({kata_id for found in files.values() for kata_id in found}):
        if _planted(kata):
            continue
        holders = {}  # the same tokens are compared once, whoever holds them
        for name in names:
            try:
                tokens = normalised(files[name].get(kata), kata)
            except (RecursionError, MemoryError):  # a file too deep to read as Python: not compared
                tokens = None
            if tokens is not None:
                holders.setdefault(tokens, []).append(name)
        for first, second, figure in _alike(list(holders), threshold):
            pairs += [Pair(kata, *sorted((a, b)), round(figure, 3)) for a in holders[first] for b in holders[second]]
        for same in holders.values():
            pairs += [Pair(kata, a, b, 1.0) for index, a in enumerate(same) for b in same[index + 1:]]
    return sorted(pairs, key=lambda pair: (-pair.similarity, pair.kata, pair.a, pair.b))


def _alike(distinct, threshold):
    """(a, b, similarity) of the pairs of distinct token lists at or above `threshold`."""
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    for index, b in enumerate(distinct):
        matcher.set_seq2(b)  # indexed once, for every a before it
        for a in distinct[:index]:
            matcher.set_seq1(a)
            if matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold:
                figure = matcher.ratio()
                if figure >= threshold:
                    yield a, b, figure


def similarity(a, b):
    """How alike two token lists are, 0..1."""
    return 1.0 if a == b else difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def normalised(source, kata_id):
    """The file's own code as a tuple of tokens, or None when it has too little to compare (or is not Python)."""
    if source is None:
        return None
    return _normalised(bytes(source), kata_id)


@lru_cache(maxsize=4096)
def _normalised(source, kata_id):
    try:
        tree = ast.parse(source.decode("utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return None
    given, libraries = _stub_parts(kata_id), _module_names(tree)
    tree.body = [node for node in _strip(tree).body
                 if not isinstance(node, (ast.Import, ast.ImportFrom)) and _shape(node, libraries) not in given]
    tokens = _tokens(ast.unparse(tree))
    return tokens if len(tokens) >= MIN_TOKENS else None


def _strip(tree):
    """The tree without docstrings or other bare strings (comments are gone already)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [stmt for stmt in body
                    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                            and isinstance(stmt.value.value, str))]
            node.body = kept or [ast.Pass()]
    return tree


def _shape(node, libraries):
    """Rename a top-level statement's names on their own (in place) and return its dump: the stub's helpers,
    renamed, are still the stub's, and each statement reads the same wherever it stands in the file."""
    return ast.dump(_Renamer(libraries).visit(node))


@lru_cache(maxsize=None)
def _stub_parts(kata_id):
    """The shape of each top-level statement of the kata's stub, docstrings stripped: what every candidate got."""
    from checker.workspace import pristine_stub

    kata = catalog.find(kata_id)
    stub = pristine_stub(kata) or kata.stub_path.read_text(encoding="utf-8")
    tree = _strip(ast.parse(stub))
    return frozenset(_shape(node, _module_names(tree)) for node in tree.body)


@lru_cache(maxsize=None)
def _planted(kata_id):
    return bool(getattr(catalog.find(kata_id).hidden(), "STUB_PLANTED", False))


def _module_names(tree):
    """Names bound by imports (np, math, ...): the libraries a file calls keep their names."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return frozenset(names)


class _Renamer(ast.NodeTransformer):
    """Every name the file chooses becomes `_N`, N its order of first appearance; library calls keep theirs."""

    def __init__(self, libraries):
        self.libraries, self.names = libraries, {}

    def rename(self, name):
        if name in _BUILTINS or name in self.libraries:
            return name
        return self.names.setdefault(name, f"_{len(self.names)}")

    def visit_Name(self, node):
        node.id = self.rename(node.id)
        return node

    def visit_arg(self, node):
        node.arg, node.annotation = self.rename(node.arg), None
        return node

    def visit_FunctionDef(self, node):
        node.name, node.returns = self.rename(node.name), None
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        node.name = self.rename(node.name)
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        owner = node.value.id if isinstance(node.value, ast.Name) else None
        if owner in ("self", "cls") or (owner not in self.libraries and node.attr in self.names):
            node.attr = self.rename(node.attr)
        return node


def _tokens(text):
    skip = {tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER}
    try:
        return tuple(token.string or tokenize.tok_name[token.type]
                     for token in tokenize.generate_tokens(io.StringIO(text).readline) if token.type not in skip)
    except (tokenize.TokenError, SyntaxError):
        return ()

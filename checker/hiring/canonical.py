"""A kata file as the token stream similarity compares: what is left once a copier's mechanical edits are undone.

The file is read with `tokenize` under caps (TOKEN_CAP tokens in all; a logical line of more than LINE_TOKENS
tokens or LINE_DEPTH nested brackets is set aside), parsed with `ast`, and every statement whose expressions
nest deeper than dataflow.MAX_HEIGHT (or that sits deeper than MAX_NESTING blocks) is set aside too, so
nothing below can recurse far. Then NumPy's equivalent spellings are written one way (spellings.py), small
helpers written where they are called (inline.py),
temporaries read once are inlined, assignments nobody reads are dropped and each block's statements are put
in one canonical order among those their data flow allows (dataflow.py). Docstrings, comments, imports,
annotations and layout are gone; every name the file chooses is the one symbol V, strings are S (an einsum
spec keeps its shape), numbers their value. Each token keeps the source lines it stands for, so a match can
be shown. A file `ast` cannot read is compared as plain tokens, with a note; nothing here raises on any input.
"""

import ast
import builtins
import io
import keyword
import re
import tokenize
from dataclasses import dataclass

from checker.hiring import dataflow, inline, spellings

TOKEN_CAP = 10_000  # tokens read from one file: the longest honest file has 889 (bench/similarity_figures.py --cost)
LINE_TOKENS = 400  # a longer logical line is set aside (real code: under 100)
LINE_DEPTH = 40  # brackets nested deeper: set aside
MAX_NESTING = 25  # blocks nested deeper: set aside
_KEEP = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
_STRING = (r"""[rRbBuUfF]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'"""
           r"""|"(?:\\.|[^"\\\n])*")""")
_NUMBER = r"""\d(?:[\w.]|(?<=[eE])[+-])*|\.\d(?:[\w.]|(?<=[eE])[+-])*"""
_OPERATOR = r"""\*\*=?|//=?|>>=?|<<=?|->|:=|\.\.\.|[-+*/%&|^@=!<>]=|[-+*/%&|^~@<>=()\[\]{},:.;]"""
_TOKEN = re.compile(rf"""[ \t\n]*(?:({_STRING})|([^\W\d]\w*)|({_NUMBER})|({_OPERATOR}))""")
_KINDS = {1: tokenize.STRING, 2: tokenize.NAME, 3: tokenize.NUMBER, 4: tokenize.OP}
_SKIP = {tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER,
         tokenize.INDENT, tokenize.DEDENT}


@dataclass(frozen=True)
class Stream:
    tokens: tuple  # the canonical tokens
    spans: tuple  # per token, an index into `ranges`
    ranges: tuple  # tuples of (first, last) source lines (1-based) a token stands for
    note: str = ""  # what was set aside, or why the file was read as plain tokens
    read: int = 0  # source tokens read (at most TOKEN_CAP): the work done

    def lines(self, positions):
        """The merged (first, last) source line ranges of the tokens at `positions`."""
        found = sorted({pair for span in {self.spans[p] for p in positions} for pair in self.ranges[span]})
        merged = []
        for first, last in found:
            if merged and first <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return tuple(merged)


def stream(source):
    """The canonical Stream of `source` (bytes or text); never raises."""
    text = source.decode("utf-8", errors="replace") if isinstance(source, bytes) else source
    try:
        parse_text, raw, notes = _read(text)
    except Exception as error:  # noqa: BLE001 - a file is a note, never a crash
        return Stream((), (), (), f"could not be read ({type(error).__name__})")
    try:
        tree = ast.parse(parse_text)
        set_aside = _guard(tree)
        if set_aside:
            notes.append(f"{set_aside} statement{'s' if set_aside > 1 else ''} nested too deep to compare set aside")
        return _from_tree(tree, len(raw), notes)
    except Exception as error:  # noqa: BLE001 - SyntaxError, RecursionError, MemoryError...: compare plain tokens
        notes.append(f"compared as plain tokens ({type(error).__name__})")
        return _from_raw(raw, notes)


def _read(text):
    """(the text `ast` may parse, the source tokens read, notes): the file cut at TOKEN_CAP (at the last
    complete top-level statement) and its over-long or over-deep logical lines replaced by a placeholder."""
    raw, notes, aside = [], [], []
    rows = text.splitlines(keepends=True)
    first = count = depth = deepest = 0
    last, blocks, cut = "", 0, None
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    try:
        for token in tokens:
            if token.type == tokenize.INDENT:
                blocks += 1
            elif token.type == tokenize.DEDENT:
                blocks -= 1
            if token.type in _SKIP:
                if token.type == tokenize.NEWLINE and count:
                    if count > LINE_TOKENS or deepest > LINE_DEPTH:
                        aside.append((first, token.start[0], last == ":"))
                    count = deepest = 0
                continue
            if len(raw) >= TOKEN_CAP:
                notes.append(f"only its first {TOKEN_CAP} tokens compared")
                rows = rows[:cut or 0]
                break
            if not count:
                first = token.start[0]
                if not blocks:
                    cut = first - 1  # every row above is a complete top-level statement
            count += 1
            if token.string in "([{" and token.type == tokenize.OP:
                depth += 1
                deepest = max(deepest, depth)
            elif token.string in ")]}" and token.type == tokenize.OP:
                depth = max(depth - 1, 0)
            last = token.string
            raw.append((token.type, token.string, token.start[0]))
    except (tokenize.TokenError, SyntaxError):
        pass  # ast.parse says what is wrong, and the plain tokens read so far are compared
    for start, end, header in aside:
        if start > len(rows):
            continue
        indent = rows[start - 1][:len(rows[start - 1]) - len(rows[start - 1].lstrip())]
        rows[start - 1] = indent + ("if V:\n" if header else "V = 0\n")
        rows[start:end] = ["\n"] * (min(end, len(rows)) - start)
    if aside:
        notes.append(f"{len(aside)} line{'s' if len(aside) > 1 else ''} too long or deep to compare set aside")
    return "".join(rows), raw, notes


def _guard(tree):
    """Replace every statement nested deeper than MAX_NESTING blocks, or whose expressions nest deeper than
    dataflow.MAX_HEIGHT, by `V = 0` (iteratively: nothing here recurses); how many were replaced."""
    replaced, stack = 0, [(tree, 0)]
    while stack:
        holder, nesting = stack.pop()
        for field in dataflow.BLOCK_FIELDS:
            block = getattr(holder, field, None)
            if not isinstance(block, list):
                continue
            for index, node in enumerate(block):
                if not isinstance(node, ast.stmt):
                    stack.append((node, nesting))  # an except handler or a match case: its body is a block
                elif nesting >= MAX_NESTING or dataflow.height(node) > dataflow.MAX_HEIGHT:
                    block[index] = ast.copy_location(dataflow.placeholder(), node)
                    replaced += 1
                else:
                    stack.append((node, nesting + 1))
    return replaced


def _from_tree(tree, read, notes):
    chosen, attributes, parameters = dataflow.chosen_names(tree)
    spellings.prepared(tree, chosen)
    inline.inline(tree)
    dataflow.simplify(tree)
    tokens, spans, ranges = [], [], []
    for lines, unit in dataflow.ordered(tree.body, lambda text: _collapse(text, chosen, attributes, parameters)):
        ranges.append(lines)
        tokens += unit
        spans += [len(ranges) - 1] * len(unit)
    return Stream(tuple(tokens), tuple(spans), tuple(ranges), "; ".join(notes), read)


def _from_raw(raw, notes):
    tokens, spans, ranges, previous = [], [], [], ""
    for kind, string, row in raw:
        if kind == tokenize.NAME:
            string = string if string in _KEEP or previous == "." else "V"
        else:
            string = _literal(kind, string)
        previous = string
        if not ranges or ranges[-1][0][0] != row:
            ranges.append(((row, row),))
        tokens.append(string)
        spans.append(len(ranges) - 1)
    return Stream(tuple(tokens), tuple(spans), tuple(ranges), "; ".join(notes), len(raw))


def _split(text):
    """The tokens of code `ast.unparse` wrote, as (type, string): a regular expression is enough for its
    regular output, and `tokenize` reads anything else."""
    found, position, end = [], 0, len(text)
    while position < end:
        match = _TOKEN.match(text, position)
        if match is None:
            if text[position:].strip():
                return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                        if t.type not in _SKIP]
            break
        found.append((_KINDS[match.lastindex], match.group(match.lastindex)))
        position = match.end()
    return found


def _collapse(text, chosen, attributes, parameters):
    """The tokens of unparsed code: names the file chose become V (a keyword argument's name only if it is
    one of the file's parameters), literals their canonical form."""
    found = _split(text)
    out, depth = [], 0
    for index, (kind, string) in enumerate(found):
        if kind == tokenize.NAME:
            if string in _KEEP:
                pass
            elif index and found[index - 1][1] == ".":
                string = "V" if string in attributes else string
            elif depth and index + 1 < len(found) and found[index + 1][1] == "=":
                string = "V" if string in parameters else string
            elif string in chosen:
                string = "V"
        else:
            depth += kind == tokenize.OP and string in ("(", "[", "{")
            depth -= kind == tokenize.OP and string in (")", "]", "}")
            string = _literal(kind, string)
        out.append(string)
    return out


def _literal(kind, string):
    if kind == tokenize.STRING:
        if "->" not in string or len(string) > 80:
            return "S"
        try:
            value = ast.literal_eval(string)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return "S"
        return _einsum(value) if isinstance(value, str) else "S"
    if kind == tokenize.NUMBER:
        try:
            return repr(float(int(string, 0) if string[:2].lower() in ("0x", "0o", "0b") else float(string)))
        except (ValueError, OverflowError):
            return string
    return string


def _einsum(spec):
    """An einsum spec with its letters renamed by first appearance: "...ij,...kj->...ik" is "...ab,...cb->...ac"."""
    names = {}
    return "E:" + "".join(names.setdefault(c, chr(97 + len(names) % 26)) if c.isalpha() else c for c in spec)

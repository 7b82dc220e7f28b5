"""Reading a quiz reply the way a person writes it: numbers, shapes, arithmetic, byte units, choices.

Every reading is strict: a reply that could mean two things, or that holds anything but numbers,
brackets, arithmetic and a byte unit, reads as nothing (None), so a wrong answer is never accepted.
Arithmetic (+ - * / ^ ** sqrt exp e and brackets, `10k` for 10,000) is parsed by `ast` and walked here: nothing
is evaluated.
"""

import ast
import math
import operator
import re

from checker.engine.questions import BYTE_UNITS, words  # noqa: F401  (quiz.py reads them here)

_SEPARATED = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$")  # 2,359,296 or 1,000,000.5
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.Pow: operator.pow}
_SPELLED = str.maketrans({"×": "*", "·": "*", "÷": "/", "−": "-", "–": "-", "√": " sqrt ", "²": "^2"})
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_FUNCTIONS = {"sqrt": math.sqrt, "exp": math.exp}
MAX_EXPONENT = 64  # 2^28 and 1000^2 are answers; 9^9^9 is not


def numbers(text, count, unit=None, nouns=(), approximate=False):
    """The `count` numbers a reply holds, or None. `unit` (a key of BYTE_UNITS): the question is about
    bytes in that unit, so a reply may carry its own byte unit (`24 MiB`, `25165824 bytes`). `nouns`: the
    question's own words, which may stand beside the number (`48 heads`, `head 0`); `approximate`: the
    question asks for a rounded figure, so `about 0.13` and `~0.13` read as 0.13. Number words read as
    numbers (`nine`, `forty-eight`)."""
    text = plain(text, nouns, approximate)
    if text is None:
        return None
    if unit:
        text, scale = _strip_unit(text, unit)
        if text is None:
            return None
    else:
        scale = 1.0
        text = _THOUSANDS.sub(r"\1*1000", text)  # 10k; never beside a byte unit (is 24k KB or KiB?)
    if count == 1:
        text = re.sub(r"(?<![a-z])x(?![a-z])", "*", text)  # 4x768x768 is one number (not exp's x)
        if _SEPARATED.match(text.replace(" ", "")):
            text = text.replace(",", "")
        value = _value(text)
        found = None if value is None else [value]
    else:
        found = _list(text)
    if found is None or len(found) != count:
        return None
    return [value * scale for value in found]


def plain(text, nouns=(), approximate=False):
    """A reply with its number words as digits and the question's own nouns (and, for an approximate
    figure, `about` or `~`) taken off, lower case; None when it says `about` where an exact figure is asked."""
    text = re.sub(r"(sqrt|exp)\s*([\d.]+)", r"\1(\2)", text.strip().lower().translate(_SPELLED))
    text = _spelled_numbers(text)
    hedge = re.match(r"^(about|around|roughly|approximately|approx\.?|circa|~|≈)\s*", text)
    if hedge:
        if not approximate:
            return None
        text = text[hedge.end():]
    words = text.split()
    while words and _noun(words[0], nouns):
        words.pop(0)
    while words and _noun(words[-1], nouns):
        words.pop()
    return " ".join(words)


def _noun(word, nouns):
    """A word of the question's own: `heads`, or a hyphenation of its words (`multiply-adds`)."""
    return word in nouns or ("-" in word and all(part in nouns for part in word.split("-")))


_ONES = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {word: 10 * n for n, word in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9}
_NUMBER_WORD = "|".join([*_ONES, *_TENS, *_SCALES])
_NUMBER_WORDS = re.compile(rf"\b(?:{_NUMBER_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORD}))*\b")


def _spelled_numbers(text):
    """`nine` as 9, `forty-eight` as 48, `two thousand and five` as 2005; a run it cannot read stays words."""
    def value(match):
        total, current = 0, None
        for word in re.split(r"[\s-]+", match.group(0)):
            if word == "and":
                continue
            if word in _ONES or word in _TENS:
                number = _ONES.get(word, _TENS.get(word))
                if current is not None and (current % 10 or number >= 10 or current < 20):
                    return match.group(0)  # "nine nine": two numbers, or none
                current = (current or 0) + number
            elif word == "hundred":
                current = (current or 1) * 100
            else:
                total += (current or 1) * _SCALES[word]
                current = None
        return str(total + (current or 0))

    return _NUMBER_WORDS.sub(value, text)


def words_of(text):
    """The nouns of a question's text, singular and plural, which a reply may repeat beside its number
    (`48 heads`, `head 0`); never a word that means arithmetic, a number or a byte unit."""
    found = set()
    for word in re.findall(r"[a-z][a-z_]*", text.lower()):
        stem = word[:-3] + "y" if word.endswith("ies") else word[:-1] if word.endswith("s") else word
        found |= {word, stem, stem[:-1] + "ies" if stem.endswith("y") else stem + "s"}
    return frozenset(word for word in found if len(word) > 1 and word not in _NOT_NOUNS)


def readable(text, unit=None, nouns=(), approximate=False):
    """True when a reply reads as one number or several (whatever the count the question wants)."""
    if numbers(text, 1, unit, nouns, approximate) is not None:
        return True
    text = plain(text, nouns, approximate)
    if text is None:
        return False
    if unit:
        text, _ = _strip_unit(text, unit)
    return text is not None and _list(text) is not None


_NOT_NOUNS = {"sqrt", "exp", "k", "x", "e", "inf", "nan", "and", "or", "of", "to", "the", "a", "an", "is", "by", "per", "times",
              "plus", "minus", "over", "divided", "not", "no", "about", "around", "roughly", "approximately",
              *_ONES, *_TENS, *_SCALES, *BYTE_UNITS}


_THOUSANDS = re.compile(r"(\d(?:\.\d+)?)\s*k\b")


def _strip_unit(text, unit):
    """(the number's text, what to multiply it by to get `unit`), or (None, None) for a word we do not know."""
    match = re.match(r"^(.*?[\d)\s])([a-z]+)$", text)
    if match is None or match.group(2) == "sqrt":
        return text, 1.0
    if match.group(2) not in BYTE_UNITS:
        return None, None  # "24 megs"
    return match.group(1), BYTE_UNITS[match.group(2)] / BYTE_UNITS[unit]


def _list(text, top=True):
    """Several numbers: `(2, 8, 10, 10)`, `2x8x10x10`, `[[1, 0], [0, 1]]`, `0.5 -0.5`, `1/3, 1/3, 1/3`."""
    text = text.strip()
    if not text:
        return None
    inner = _unwrap(text)
    if inner is not None:
        return _list(inner, top)
    pieces = _split_top(text, ",;")
    if len(pieces) == 1:
        if top and re.fullmatch(r"[\d.\s]+([x*][\d.\s]+)+", text):  # 2x8x10x10: a shape
            return [_value(piece) for piece in re.split(r"[x*]", text)]
        return _spaced(text)
    found = []
    for piece in pieces:
        values = _list(piece, top=False)
        if values is None:
            return None
        found += values
    return found


def _spaced(text):
    """Numbers separated by spaces, an operator keeping its two neighbours together (`1 / 3 2 / 3`)."""
    tokens, joined = text.split(), []
    for token in tokens:
        if joined and (joined[-1][-1] in "+-*/^(" or token[0] in "*/^)"
                       or (token in ("+", "-"))):
            joined[-1] += token
        else:
            joined.append(token)
    values = [_value(token) for token in joined]
    return None if any(v is None for v in values) else values


def _unwrap(text):
    """The inside of `text` when one pair of brackets wraps all of it, else None."""
    if text[0] not in _BRACKETS or text[-1] != _BRACKETS[text[0]]:
        return None
    depth = 0
    for position, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0 and position < len(text) - 1:
            return None
    return text[1:-1]


def _split_top(text, separators):
    pieces, depth, start = [], 0, 0
    for position, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0 and char in separators:
            pieces.append(text[start:position])
            start = position + 1
    pieces.append(text[start:])
    return [piece for piece in pieces if piece.strip()] if len(pieces) > 1 else pieces


def _value(text):
    """One number written as arithmetic, or None."""
    text = text.strip().replace("^", "**").replace("[", "(").replace("]", ")")
    if not text or len(text) > 200:
        return None
    try:
        tree = ast.parse(text, mode="eval")
        value = _walk(tree.body)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError, RecursionError):
        return None
    return float(value) if math.isfinite(value) else None


def _walk(node):
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _walk(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _walk(node.left), _walk(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > MAX_EXPONENT or abs(left) > 10**6):
            raise ValueError("too large a power")
        return _OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.Name) and node.id == "e":
        return math.e  # e^-3.5
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
            and len(node.args) == 1 and not node.keywords):
        argument = _walk(node.args[0])
        if node.func.id == "exp" and abs(argument) > 700:
            raise ValueError("too large a power")
        return _FUNCTIONS[node.func.id](argument)
    raise ValueError("not arithmetic")


# --- choices ---------------------------------------------------------------------------------------

_LETTER = re.compile(r"^[(\[]?\s*(?:(?:option|answer|choice)\s+)?([a-z])(?:\s*[)\].:]\s*|\s+|$)(.*)$")
_LITTLE_WORDS = {"a", "an", "the", "of", "to", "it", "its", "is", "in", "on", "and", "or", "by", "for", "with", "as",
                 "at", "x"}


def choice(reply, choices):
    """The index of the choice a reply names, or None: by letter in any wrapping (`b`, `(b)`, `b.`,
    `option b`), by the option as printed (`b) text`), or by its text, whole or a start no other shares."""
    text = reply.strip().lower()
    letters = len(choices)
    if len(text) == 1:
        return ord(text) - ord("a") if "a" <= text < chr(ord("a") + letters) else None
    by_text = _by_text(text, choices)
    if by_text is not None:
        return by_text
    match = _LETTER.match(text)
    if match is None or not "a" <= match.group(1) < chr(ord("a") + letters):
        return None
    index, rest = ord(match.group(1)) - ord("a"), match.group(2).strip()
    if rest and _by_text(rest, choices) != index:
        return None  # `b) something else`: the letter and the text disagree
    return index


def _by_text(text, choices):
    said = words(text)
    if not said:
        return None
    texts = [words(c) for c in choices]
    if said in texts:
        return texts.index(said) if texts.count(said) == 1 else None
    if not set(said.split()) - _LITTLE_WORDS:
        return None  # "the": no word that says anything
    starts = [i for i, t in enumerate(texts) if (t + " ").startswith(said + " ")]
    return starts[0] if len(starts) == 1 else None

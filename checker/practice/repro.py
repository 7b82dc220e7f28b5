"""A failing check as a runnable Python snippet: the failing call with its inputs, replayed on the
learner's file, printing what came back where the message points, beside what the message says.

The hidden test recorded every call it made into the sandbox (proxy.Call). The snippet replays the
failing call (the one its message names, else the test's last) and the calls that built the learner
objects it uses (a KVCache and what was appended to it). Small inputs are written inline, exactly;
larger ones go to an .npz file beside the snippet. It holds nothing of the test beyond its calls'
inputs, which the learner's code received anyway: the expected value is only the message's.
"""

import re
from dataclasses import dataclass
from pathlib import Path

INLINE = 16  # arrays of up to this many numbers are written in the snippet itself


@dataclass
class Repro:
    code: str
    arrays: dict  # name -> array, for the .npz beside the snippet (empty: everything is inline)


# Python's operations on a learner object, as messages speak of them and as a snippet writes them
# (proxy.LearnerObject records each as a call of its dunder's name)
_SPOKEN = {"__len__": r"\blen\(", "__bool__": r"\bbool\(", "__iter__": r"\b(?:list|iter)\(",
           "__getitem__": r"\w\[", "__eq__": r"=="}
_WRITTEN = {"__len__": "len({owner})", "__bool__": "bool({owner})", "__iter__": "list({owner})",
            "__getitem__": "{owner}[{args}]", "__eq__": "{owner} == {args}"}
_NUMBER = r"(-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan))"


def failing_call(test):
    """The call a failure's message names (by its text, else by its function's name or the operation it
    speaks of, `len(cache)`), and of those the last whose result holds the number the message reports;
    else the test's last call that changed something; None without calls."""
    named = [call for call in test.calls if call.text in test.message]
    by_name = [call for call in test.calls
               if re.search(_SPOKEN.get(call.name, rf"\b{re.escape(call.name)}\("), test.message)]
    changes = [call for call in test.calls if call.name not in _SPOKEN]
    candidates = named or by_name or changes or test.calls
    if not candidates:
        return None
    number = reported(test.message)
    if number is not None:
        for pool in (candidates, test.calls):
            holding = [call for call in pool if locate(call.result, *number) is not None]
            if holding:
                return holding[-1]
    return candidates[-1]


def reported(message):
    """The number a message says came back, as (its text, the index it names or None), or None."""
    found = re.search(r"at (\[[\d, ]+\]): got " + _NUMBER, message)
    if found:
        return found.group(2), tuple(int(i) for i in found.group(1)[1:-1].split(","))
    found = (re.search(r"\bgot " + _NUMBER, message)  # `len(cache) is 3`: a value a call gave, not `3 positions`
             or re.search(r"(?:\) (?:is|was)|\breturned) " + _NUMBER + r"(?![\w.(\[])", message))
    return (found.group(1), None) if found else None


def locate(value, text, index=None):
    """Where in a call's result the number `text` is (to the digits it shows): the keys to it, tuple or list
    items first, then an array's index ([] for the value itself), or None."""
    import numpy as np

    if isinstance(value, (tuple, list)):
        for key, item in enumerate(value):
            found = locate(item, text, index)
            if found is not None:
                return [key] + found
        return None
    if not isinstance(value, (np.ndarray, np.generic, int, float)) or isinstance(value, bool):
        return None
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        return None
    if index is not None:
        if len(index) != array.ndim or any(i >= n for i, n in zip(index, array.shape)):
            return None
        return [index] if _near(array[index], text) else None
    hits = np.argwhere(_near(array, text))
    if not len(hits):
        return None
    return [tuple(int(i) for i in hits[0])] if array.ndim else []


def _near(values, text):
    """Which of `values` a message printing `text` may have shown (it rounds to the digits it prints)."""
    import numpy as np

    values = np.asarray(values, float)
    if text in ("nan", "-nan"):
        return np.isnan(values)
    target = float(text)
    if target in (float("inf"), float("-inf")):
        return values == target
    digits = max(1, len(text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")))
    with np.errstate(invalid="ignore"):
        return np.isclose(values, target, rtol=0.51 * 10.0 ** (1 - digits), atol=1e-12)


def needed(calls, failing):
    """The calls to replay: `failing` and, before it, those that made, changed or were handed the objects it
    uses (a KVCache, and the calls that appended to it or attended through it)."""
    handles, chosen = set(), []
    for call in reversed(calls[:calls.index(failing) + 1]):
        used = set(_handles((call.args, call.kwargs))) | ({call.target.id} if call.target is not None else set())
        if call is failing or call.made in handles or used & handles:
            chosen.append(call)
            handles |= used
    return chosen[::-1]


def _handles(value):
    from checker.engine.proxy import LearnerObject

    if isinstance(value, LearnerObject):
        yield value._handle.id
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _handles(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _handles(item)


def build(test, learner_file, kata_id, data_file, frontend="numpy"):
    """The snippet for one failed test (a TestOutcome with its calls), or None when it made no call.
    `frontend` "torch": the file is PyTorch, so arrays go in as tensors, as the checker sent them."""
    failing = failing_call(test)
    if failing is None:
        return None
    torch = frontend == "torch"
    writer = _Writer(data_file, "torch.as_tensor" if torch else "")
    body = []
    for call in needed(test.calls, failing):
        if call.name in _SPOKEN and call is not failing:
            continue  # a look (len, bool, an item), not a change: the objects are the same without it
        args = [writer.literal(arg) for arg in call.args]
        args += [f"{key}={writer.literal(value)}" for key, value in call.kwargs.items()]
        owner = f"obj{call.target.id}" if call.target is not None else "kata"
        invocation = _WRITTEN.get(call.name, "{owner}.{name}({args})").format(
            owner=owner, name=call.name, args=", ".join(args))
        if call is failing:
            invocation = f"got = {invocation}"
        elif call.made is not None:
            invocation = f"obj{call.made} = {invocation}"
        body += _broken(invocation)
    message = " ".join(test.message.split())
    head = [f"# A repro of `kata check {kata_id}`'s failing check `{test.name}`:",
            "# the call it made, on your file. The checker said:", *(f"#   {line}" for line in _lines(message, 72)),
            "import importlib.util", "", "import numpy as np", *(["import torch"] if torch else []),
            "from numpy import inf, nan", "",
            f"path = {str(Path(learner_file).resolve())!r}  # your file",  # a line of its own: 80 columns
            "spec = importlib.util.spec_from_file_location('learner', path)",
            "kata = importlib.util.module_from_spec(spec)", "spec.loader.exec_module(kata)"]
    if writer.arrays:
        head.append(f"inputs = np.load({str(Path(data_file).resolve())!r})")
    return Repro("\n".join(head + [""] + body + _shown(test.message, failing.result)) + "\n", writer.arrays)


SHOW = """
def show(value):  # a value as the checker's messages show it
    if isinstance(value, (tuple, list)):
        items = ', '.join(map(show, value))
        one = ',' if len(value) == 1 and isinstance(value, tuple) else ''
        return f'({items}{one})' if isinstance(value, tuple) else f'[{items}]'
    array = np.asarray(value.detach() if hasattr(value, 'detach') else value)
    if array.dtype.kind not in 'biuf':
        return repr(value)
    if array.ndim == 0:
        item = array.item()
        return f'{item:.6g}' if isinstance(item, float) else str(item)
    part = array.ravel()[:5] if array.size > 20 else array
    def short(x):  # unpadded, as the messages show arrays: [0.37, 0]
        return np.format_float_positional(x + 0.0, precision=4, trim='-')
    text = np.array2string(part, separator=', ',
                           formatter={'float_kind': short}).replace(chr(10), '')
    if array.size > 20:
        return f'array of shape {array.shape}, starting {text[:-1]}, ...]'
    return text
"""


def _shown(message, result):
    """What to print of `got`: the whole of it as the messages show values, then the entry holding the
    value the message reports (found in what came back when the check ran, so the snippet prints the same
    entry after a fix), beside what the message says."""
    lines = ["", "", *SHOW.strip().splitlines(), "", ""]
    shape = re.search(r"shape (\([\d, ]*\)), expected (\([\d, ]*\))", message)
    expected = re.search(r"expected (\(?\[[^\]]*\][^:;]*?|-?\d[\w.+-]*)(?=[:;]| for |$)", message)
    number = reported(message)
    said = (f"  # the checker saw shape {shape.group(1)}, expected {shape.group(2)}" if shape else
            f"  # the checker saw {number[0]}, expected {expected.group(1)}" if number and expected and
            locate(result, *number) == [] else "")
    lines.append(f"print(show(got)){said}")
    path = locate(result, *number) if number else None
    if path:  # an entry of it, not the value itself
        where = "".join(f"[{', '.join(map(str, key))}]" if isinstance(key, tuple) else f"[{key}]" for key in path)
        lines.append(f"print('got{where} =', repr(float(got{where})))  # the checker saw {number[0]}"
                     + (f", expected {expected.group(1)}" if expected else ""))
    return lines


def _broken(line, width=79):
    """A long line of code broken after the commas inside its brackets (never inside a string), each
    continuation indented: still one statement."""
    if len(line) <= width:
        return [line]
    pieces, current, depth, quote = [], "", 0, None
    for char in line:
        current += char
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth > 0:
            pieces.append(current)
            current = ""
    pieces.append(current)
    lines, text = [], ""
    for piece in pieces:
        if text and len(text) + len(piece) > width:
            lines.append(text.rstrip())
            text = "    " + piece.lstrip()
        else:
            text += piece
    return lines + [text]


def _lines(text, width):
    lines, current = [], ""
    for word in text.split(" "):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return lines + [current]


class _Writer:
    """Python source for the calls' arguments; arrays too big to inline are collected for the .npz."""

    def __init__(self, data_file, wrap=""):
        self.data_file, self.arrays, self.wrap = data_file, {}, wrap  # wrap: what turns an array into an input

    def literal(self, value):
        import numpy as np

        from checker.engine.proxy import LearnerObject

        if isinstance(value, LearnerObject):
            return f"obj{value._handle.id}"
        if isinstance(value, np.ndarray):
            if value.size <= INLINE and value.dtype.kind in "biuf":
                text = f"np.array({value.tolist()!r}, dtype={_dtype(value.dtype)})"
            else:
                name = f"a{len(self.arrays)}"
                self.arrays[name] = value
                text = f"inputs[{name!r}]"
            return f"{self.wrap}({text})" if self.wrap else text
        if isinstance(value, np.generic):
            return f"{_dtype(value.dtype)}({value.item()!r})"
        if isinstance(value, tuple):
            items = [self.literal(item) for item in value]
            return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
        if isinstance(value, list):
            return f"[{', '.join(self.literal(item) for item in value)}]"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{key!r}: {self.literal(item)}" for key, item in value.items()) + "}"
        if isinstance(value, float) and value != value:
            return "float('nan')"
        if isinstance(value, float) and value in (float("inf"), float("-inf")):
            return f"float({str(value)!r})"
        return repr(value)


def _dtype(dtype):
    """A dtype as NumPy 1.24 and 2.x both spell it: np.bool is NumPy 2's only (1.24-1.26 removed it)."""
    return "np.bool_" if dtype.kind == "b" else f"np.{dtype.name}"


def write(repro, path):
    """The snippet at `path` and its arrays beside it (`path` with .npz); the paths written."""
    import numpy as np

    from checker.practice.progress import atomic_write

    path = Path(path)
    atomic_write(path, repro.code)
    written = [path]
    if repro.arrays:
        np.savez(path.with_suffix(".npz"), **repro.arrays)
        written.append(path.with_suffix(".npz"))
    return written

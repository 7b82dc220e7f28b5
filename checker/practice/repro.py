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


def failing_call(test):
    """The call a failure's message names (the last such: by its text, else by its function's name), else
    the test's last call that is not a look at len(); None without calls."""
    named = [call for call in test.calls if call.text in test.message]
    by_name = [call for call in test.calls if re.search(rf"\b{re.escape(call.name)}\(", test.message)]
    changes = [call for call in test.calls if call.name != "__len__"]
    return (named or by_name or changes or test.calls or [None])[-1]


def needed(calls, failing):
    """The calls to replay: `failing` and, before it, those that made or changed the objects it uses."""
    handles, chosen = set(), []
    for call in reversed(calls[:calls.index(failing) + 1]):
        if call is failing or call.made in handles or (call.target is not None and call.target.id in handles):
            chosen.append(call)
            handles |= set(_handles((call.args, call.kwargs))) | ({call.target.id} if call.target is not None else set())
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
        if call.name == "__len__" and call is not failing:
            continue  # a look, not a change: the objects are the same without it
        args = [writer.literal(arg) for arg in call.args]
        args += [f"{key}={writer.literal(value)}" for key, value in call.kwargs.items()]
        owner = f"obj{call.target.id}" if call.target is not None else "kata"
        name = "len" if call.name == "__len__" else call.name
        invocation = f"len({owner})" if name == "len" else f"{owner}.{name}({', '.join(args)})"
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
            f"spec = importlib.util.spec_from_file_location('learner', {str(Path(learner_file).resolve())!r})",
            "kata = importlib.util.module_from_spec(spec)", "spec.loader.exec_module(kata)"]
    if writer.arrays:
        head.append(f"inputs = np.load({str(Path(data_file).resolve())!r})")
    return Repro("\n".join(head + [""] + body + _shown(test.message)) + "\n", writer.arrays)


_NUMBER = r"(-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan))"


def _shown(message):
    """What to print of `got`: where the message points (an index, or the entry holding the value it
    reports), else the whole of it as the messages show values (numbers when few, else the shape)."""
    lines = ["", "", "def show(value):  # a value as the checker's messages show it",
             "    if isinstance(value, (tuple, list)):",
             "        return '(' + ', '.join(show(item) for item in value) + ')'",
             "    array = np.asarray(value.detach() if hasattr(value, 'detach') else value)",
             "    if array.dtype.kind not in 'biuf':",
             "        return repr(value)",
             "    if array.size > 12:",
             "        return f'array of shape {array.shape}'",
             "    text = np.array2string(np.round(array, 3), separator=', ')",
             "    return text.replace(chr(10), '')", "", ""]
    shape = re.search(r"shape (\([\d, ]*\)), expected (\([\d, ]*\))", message)
    said = f"  # the checker saw shape {shape.group(1)}, expected {shape.group(2)}" if shape else ""
    lines.append(f"print(show(got)){said}")
    at = re.search(r"at (\[[\d, ]+\]): got " + _NUMBER + ", expected " + _NUMBER, message)
    if at:
        return lines + [f"print('got{at.group(1)} =', repr(float(np.asarray(got){at.group(1)})))"
                        f"  # the checker saw {at.group(2)}, expected {at.group(3)}"]
    value = re.search(r"got " + _NUMBER + ", expected " + _NUMBER, message)
    if value:
        lines += [f"where = np.argwhere(np.isclose(np.asarray(got, float), {value.group(1)}, rtol=1e-4, atol=1e-6))",
                  "if len(where):",
                  f"    print(f'got{{where[0].tolist()}} =', repr(float(np.asarray(got)[tuple(where[0])])))"
                  f"  # the checker saw {value.group(1)}, expected {value.group(2)}"]
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
                text = f"np.array({value.tolist()!r}, dtype=np.{value.dtype.name})"
            else:
                name = f"a{len(self.arrays)}"
                self.arrays[name] = value
                text = f"inputs[{name!r}]"
            return f"{self.wrap}({text})" if self.wrap else text
        if isinstance(value, np.generic):
            return f"np.{value.dtype.name}({value.item()!r})"
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

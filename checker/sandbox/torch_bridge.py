"""PyTorch kata files, on the child's side: tensors in where the contract has arrays, arrays out.

Loaded by the worker only for a file the parent found importing torch (`imports_torch`, run by the parent
on the bytes it read), so checking a NumPy file never imports torch. Torch is imported before the walls
go up and before the memory limit is measured (its own mappings are not the learner's), with its threads
capped as NumPy's are; afterwards only torch's own folder and those of the packages it loads lazily become
readable. The parent still compares in NumPy: everything a learner's function returns comes back as arrays.
"""

import os
import sys

INSTALL_HINT = 'this file imports torch, which is not installed here: pip install -e ".[torch]"'
_LAZY = ("sympy", "mpmath", "networkx", "jinja2", "markupsafe", "filelock", "fsspec", "typing_extensions")


def imports_torch(source, limit=200_000):
    """True when the file's code (not its comments or strings) imports torch: `import torch`, `import numpy as
    np, torch.nn as nn`, `from torch import ...`. Tokenized, never parsed into a tree: linear in the file, and
    no nesting can make it recurse."""
    import io
    import tokenize

    try:
        names = [t.string for t in tokenize.tokenize(io.BytesIO(source[:limit]).readline)
                 if t.type in (tokenize.NAME, tokenize.OP, tokenize.NEWLINE)]
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, ValueError):
        return False
    for i, word in enumerate(names[:-1]):
        if word == "from" and names[i + 1] == "torch":
            return True
        if word == "import":  # each comma-separated module's first name, up to the statement's end
            starts = [names[i + 1]] + [names[j + 1] for j in range(i + 1, len(names) - 1) if names[j] == ","
                                       and "\n" not in names[i + 1:j]]
            if "torch" in starts:
                return True
    return False


def setup():
    """Import torch (one thread, as NumPy), before the limits and walls. Returns the module."""
    import torch

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set in this process
        pass
    return torch


def warm_up(array):
    """Torch's calls of the kinds a kata makes, once, before hello (as worker.warm_up does NumPy's): torch's
    lazy first-use allocations are then in the baseline the parent reads, not in a learner's figures."""
    import torch

    for x in (to_torch(array), to_torch(array).float()):
        s = x @ x.transpose(-2, -1) / 8 ** 0.5
        s = s.masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), float("-inf"))
        m = torch.maximum(s.amax(dim=-1, keepdim=True), torch.full_like(s[..., :1], -1.0))
        e = torch.exp(s - torch.where(torch.isneginf(m), torch.zeros_like(m), m))
        w = torch.softmax(s, dim=-1) + e / e.sum(dim=-1, keepdim=True)
        to_numpy(torch.cat([w @ x, torch.einsum("bhqk,bhkd->bhqd", w, x)], dim=2).transpose(1, 2).reshape(1, 8, 16))
        torch.arange(4)[:, None] <= torch.arange(4)


def readable():
    """Torch's folder and the folders of the pure-Python packages it imports lazily (sympy for its shape
    maths, and so on): what a torch file needs to read, and nothing else of site-packages."""
    import importlib.util

    folders = []
    for name in ("torch", *_LAZY):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            continue
        origin = spec.origin
        folders.append(os.path.dirname(origin) if os.path.basename(origin) == "__init__.py" else origin)
    torch_folder = folders[0] if folders else None
    if torch_folder and os.path.isdir(torch_folder + ".libs"):
        folders.append(torch_folder + ".libs")
    return folders + ["/proc/cpuinfo"]  # torch's cpuinfo reads what the processor offers


def to_torch(value):
    """Arrays as tensors (sharing memory, so a change in place is seen as with NumPy), however nested."""
    import numpy as np

    torch = sys.modules["torch"]
    if isinstance(value, np.ndarray) and value.dtype != object:
        return torch.from_numpy(value)
    if isinstance(value, list) and value and isinstance(value[0], list):  # katas 01-03's nested lists
        try:
            array = np.asarray(value)
            if array.dtype.kind in "biuf":
                return torch.from_numpy(array)
        except (ValueError, TypeError):  # ragged: item by item, below
            pass
    if isinstance(value, (list, tuple)):
        items = [to_torch(item) for item in value]
        if all(new is old for new, old in zip(items, value)):
            return value  # nothing to convert (kata 12's prompt, 06's positions as ints): the very list, so a
            # change the file makes in place is seen, as with NumPy, and the parent compares after
        return type(value)(items)
    if isinstance(value, dict):
        return {key: to_torch(item) for key, item in value.items()}
    return value


def to_numpy(value):
    """Tensors as arrays, however nested; a 0-d integer or bool tensor as a Python number (torch's habit
    where the contract returns an int)."""
    torch = sys.modules["torch"]
    if isinstance(value, torch.Tensor):
        tensor = value.detach().cpu()
        if tensor.ndim == 0 and not tensor.is_floating_point() and not tensor.is_complex():
            return tensor.item()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        return tensor.resolve_conj().resolve_neg().numpy()
    if isinstance(value, (list, tuple)):
        return type(value)(to_numpy(item) for item in value)
    if isinstance(value, dict):
        return {key: to_numpy(item) for key, item in value.items()}
    return value

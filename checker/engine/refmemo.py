"""The reference's answers remembered across checks, where one process checks many files (the project's tests):
the hidden tests draw their inputs from the seed alone, so every file checked under one seed asks the reference
the same questions, and kata 08's memory check alone spent ~30 ms of the parent's CPU a file asking them again.

Only a plain call is remembered: a module-level function of the reference, every argument and the answer made of
arrays, numbers, strings, None and tuples, lists or dicts of them (a model, a cache object, a random generator:
never). The key is the call's name and its arguments' bytes (a digest), so an input that differs in one bit is
a new question; an answer is handed out as a copy, so a test that changes what it got changes nothing kept.
Off unless `enable()` is called: a lone `kata check` asks each question once anyway.
"""

import copy
import hashlib
import inspect
import threading

import numpy as np

MAX_BYTES = 64 * 2**20  # the answers kept, in all: past it, later ones are computed and not kept

_enabled = False
_lock = threading.Lock()
_answers = {}  # (kata id, name, key) -> answer
_held = 0


def enable():
    global _enabled
    _enabled = True


def disable():
    """Forget every answer, and remember no more."""
    global _enabled, _held
    with _lock:
        _enabled, _held = False, 0
        _answers.clear()


def wrap(kata_id, module):
    """`module` as the hidden tests see it: itself when off, else with its plain calls remembered."""
    return Remembering(kata_id, module) if _enabled else module


class Remembering:
    """A reference module whose functions remember their plain calls (every other name passes through)."""

    def __init__(self, kata_id, module):
        self._kata_id, self._module = kata_id, module

    def __getattr__(self, name):
        value = getattr(self._module, name)
        if not inspect.isfunction(value):
            return value  # a class (KVCache), a constant: as it is

        def remembered(*args, **kwargs):
            key = _key((args, kwargs))
            if key is None:
                return value(*args, **kwargs)
            key = (self._kata_id, name, key)
            with _lock:
                found = _answers.get(key, _answers)
            if found is not _answers:
                return copy.deepcopy(found)
            answer = value(*args, **kwargs)
            _keep(key, answer)
            return answer

        remembered.__name__ = name
        return remembered


def _keep(key, answer):
    global _held
    size = _size(answer)
    if size is None:
        return
    with _lock:
        if _held + size <= MAX_BYTES:
            _answers[key] = copy.deepcopy(answer)
            _held += size


def _key(value):
    """A hashable key for a plain value (its arrays by dtype, shape and a digest of their bytes), or None."""
    if type(value) is float:
        return ("float", value.hex())  # -0.0 is not 0.0, and a NaN is a NaN
    if value is None or type(value) in (bool, int, str):
        return (type(value).__name__, value)
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return ("g", value.dtype.str, value.tobytes())
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            return None
        digest = hashlib.blake2b(np.ascontiguousarray(value).data, digest_size=16).digest()
        return ("a", value.dtype.str, value.shape, digest)
    if type(value) in (tuple, list):
        keys = tuple(_key(item) for item in value)
        return None if None in keys else (type(value).__name__, keys)
    if type(value) is dict:
        keys = tuple((_key(name), _key(item)) for name, item in value.items())
        return None if any(None in pair for pair in keys) else ("d", keys)
    return None


def _size(value):
    """The bytes a plain answer holds, or None if it is not plain (then it is not kept)."""
    if value is None or type(value) in (bool, int, float, str):
        return 64
    if isinstance(value, (np.ndarray, np.generic)):
        return int(value.nbytes) + 128 if value.dtype.kind in "biuf" else None
    if type(value) in (tuple, list):
        sizes = [_size(item) for item in value]
        return None if None in sizes else sum(sizes) + 64
    if type(value) is dict:
        sizes = [_size(item) for item in value.values()]
        return None if None in sizes or not all(type(k) is str for k in value) else sum(sizes) + 64
    return None

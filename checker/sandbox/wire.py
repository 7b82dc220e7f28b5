"""The wire format between the sandbox's parent and its child, imported by both.

The parent imports it as `checker.sandbox.wire`; the child, which imports no `checker` package, as
`wire`, from beside `worker.py`. Standard library and NumPy only.

Both ways: an 8-byte big-endian length, a JSON header of that length, then the arrays the header
refers to, each as its raw bytes in C order (never pickles: a result cannot run code in the parent). In a
header, an array is {"a": i, "d": dtype, "s": shape}, a tuple {"t": [...]}, a list {"l": [...]}, a learner
object that cannot be sent is {"h": id}, a handle the parent can call methods on.
"""

import json
import math
import struct

import numpy as np

_LENGTH = struct.Struct(">Q")
FULL_ISOLATION = ("user-namespace", "network-namespace", "private-tmpfs", "no-new-privs", "landlock-fs",
                  "landlock-net", "landlock-scope", "seccomp")  # isolation.FULL, here for the parent, which imports no ctypes


def encode(value, blobs, register=None):
    """`value` as JSON-able data; arrays go to `blobs`, others to `register(obj) -> id`."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and type(value) in (int, float):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise TypeError(f"cannot send an array of dtype {array.dtype}")
        blobs.append(np.ascontiguousarray(array).tobytes())
        return {"a": len(blobs) - 1, "d": array.dtype.str if array.dtype.fields is None else array.dtype.descr,
                "s": list(array.shape)}
    if isinstance(value, tuple):
        return {"t": [encode(item, blobs, register) for item in value]}
    if isinstance(value, list):
        return {"l": [encode(item, blobs, register) for item in value]}
    if isinstance(value, Handle):
        return {"h": value.id}
    if register is not None:
        return {"h": register(value)}
    raise TypeError(f"cannot send a {type(value).__name__}")


def decode(data, blobs, resolve=None):
    """Inverse of `encode`; `resolve(id)` turns a handle id into an object (default: `Handle`)."""
    if not isinstance(data, dict):
        return data
    if "a" in data:
        return _array(blobs[data["a"]], data["d"], data["s"])
    if "t" in data:
        return tuple(decode(item, blobs, resolve) for item in data["t"])
    if "l" in data:
        return [decode(item, blobs, resolve) for item in data["l"]]
    if "h" in data:
        return resolve(data["h"]) if resolve else Handle(data["h"])
    raise ValueError(f"unknown wire value {data!r}")


def _array(blob, descr, shape):
    """A writable array of `descr` and `shape` from exactly its bytes; ValueError for anything else."""
    dtype = np.dtype(descr if isinstance(descr, str) else [tuple(field) for field in descr])
    if dtype.hasobject or not (isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape)):
        raise ValueError(f"not an array: {descr!r}, {shape!r}")
    if len(blob) != dtype.itemsize * math.prod(shape):
        raise ValueError(f"{len(blob)} bytes for an array {descr!r} of shape {shape}")
    array = np.frombuffer(blob, dtype).reshape(shape)
    # a bytearray (the child's reader: the trusted parent's request) is writable and held by this array alone;
    # bytes (the parent's reader: the child's reply) are copied, so no two arrays share what the child sent
    return array if isinstance(blob, bytearray) else array.copy()


class Handle:
    """Names an object that lives in the child (a learner's `KVCache`, say)."""

    def __init__(self, id):
        self.id = id

    def __repr__(self):
        return f"<object #{self.id} in the sandbox>"


def send(stream, header, blobs=()):
    header = dict(header, blobs=[len(blob) for blob in blobs])
    text = json.dumps(header).encode()
    stream.write(_LENGTH.pack(len(text)) + text + b"".join(blobs))
    stream.flush()


class TooLarge(ValueError):
    """A message longer than the reader takes (`size`: the bytes it announced)."""

    def __init__(self, size):
        super().__init__(f"a message of {size:,} bytes")
        self.size = size


def receive(read, limit=None):
    """One message from `read(n) -> bytes`, or None if the stream ends first. With `limit`, a message whose
    header and arrays together announce more bytes raises TooLarge before any array is read."""
    prefix = read(_LENGTH.size)
    if len(prefix) < _LENGTH.size:
        return None
    size = _LENGTH.unpack(prefix)[0]
    if limit is not None and size > limit:
        raise TooLarge(size)
    header = json.loads(read(size))
    sizes = header.pop("blobs")
    if not (isinstance(sizes, list) and all(type(n) is int and n >= 0 for n in sizes)):
        raise ValueError("not a list of array sizes")
    if limit is not None and size + sum(sizes) > limit:
        raise TooLarge(size + sum(sizes))
    return header, [read(n) for n in sizes]

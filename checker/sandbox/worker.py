"""The child side of the sandbox: loads one learner file and serves calls on it.

Run by `child.py` in the process `checker.sandbox.Sandbox` starts; never imported by the parent: the
wire format both sides speak is `wire.py`, beside it. Before it loads the learner's file it walls itself
in (`isolation.restrict`) and sends one message, which walls stand; only then does it serve the parent's
requests. It needs nothing but the standard library and NumPy, so the learner's file can break nothing
of the checker's: whatever it patches, it patches in this process only.
"""

import errno
import functools
import math
import operator
import os
import sys
import traceback

import numpy as np
import torch_bridge  # beside this script too; it imports torch only when asked (bridge.setup)
from wire import FULL_ISOLATION, decode, encode, receive, send  # beside this script (child.py puts it on the path)

OUTPUT_LIMIT = "OutputLimit"  # the error type of a print past the output limit (the learner raised nothing)
STACK_SIGNAL = "SIGUSR1"  # on it, the child writes its Python stack to its output (for a time-out's line)


# --- the server (child only) ------------------------------------------------------------------

def _learner_frames(tb, path):
    """The traceback lines that point into the learner's file: (line, function, code)."""
    return [
        [frame.lineno, frame.name, frame.line or ""]
        for frame in traceback.extract_tb(tb)
        if os.path.abspath(frame.filename) == path
    ]


def _allocator_refused(exc):
    """PyTorch's allocator says it ran out of memory with a RuntimeError (DefaultCPUAllocator: can't allocate
    memory): the same limit as NumPy's MemoryError, so the same message."""
    return isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc)


def _error(exc, path):
    name = type(exc).__name__
    if isinstance(exc, SystemExit):
        message = f"the code called sys.exit({exc.code!r})"
    elif isinstance(exc, MemoryError) or _allocator_refused(exc):
        name, message = "MemoryError", "the code ran out of memory (the sandbox's memory limit)"
    elif isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        name, message = OUTPUT_LIMIT, "the code printed more than the sandbox allows"  # it raised nothing itself
    else:
        message = str(exc)
    frames = _learner_frames(exc.__traceback__, path)
    if isinstance(exc, SyntaxError) and exc.lineno:
        message = exc.msg
        frames = [[exc.lineno, "<module>", (exc.text or "").strip()]]
    return {"type": name, "message": message, "frames": frames}


def _measured(run):
    """Run a call, and return (result, {"cpu_seconds", "peak_bytes"}) as this process counts them: only where
    the parent cannot read them from the kernel (not Linux), and so only as good as the learner's word."""
    import time
    import tracemalloc

    tracemalloc.start()
    began = time.process_time()
    try:
        result = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, {"cpu_seconds": time.process_time() - began, "peak_bytes": peak}


def _write_files(paths, blobs):
    """The files the parent sent (the learner's, and any other it was given), into the private tmpfs."""
    for path, blob in zip(paths, blobs):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, blob)
        finally:
            os.close(fd)


def _trace(run, path):
    """Run a call again with floating-point errors raised: where in the learner's file the first
    NaN or inf was made, as {"frames", "message"}, or None."""
    try:
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            run()
    except FloatingPointError as error:
        frames = _learner_frames(error.__traceback__, path)
        return {"frames": frames, "message": str(error)} if frames else None
    except BaseException:  # noqa: BLE001 - any other failure: nothing to trace
        return None
    return None


def _signatures(module, names):
    """The parameter names of each plain function among `names`, in order (to compare with the stub's)."""
    import inspect

    found = {}
    for name in names:
        function = getattr(module, name, None)
        if inspect.isfunction(function):
            try:
                found[name] = [p.name for p in inspect.signature(function).parameters.values()
                               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            except (TypeError, ValueError):
                pass
    return found


def _dump_stack_on_signal():
    """A time-out's parent asks, by a signal, where the code is: faulthandler writes it to our output."""
    import faulthandler
    import signal

    if hasattr(signal, STACK_SIGNAL):
        faulthandler.register(getattr(signal, STACK_SIGNAL), all_threads=False)


def _load(path):
    from importlib.machinery import SourceFileLoader
    from importlib.util import module_from_spec, spec_from_loader

    # Any file name works (my-try.v2.py): the loader is given explicitly.
    loader = SourceFileLoader("kata_learner", path)
    module = module_from_spec(spec_from_loader("kata_learner", loader))
    sys.modules["kata_learner"] = module
    loader.exec_module(module)
    return module


def _limit(memory_mb, cpu_seconds, output_bytes):
    try:
        import resource
    except ImportError:  # not POSIX: the parent's wall-clock limit still holds
        return
    used = resource.getrusage(resource.RUSAGE_SELF)  # the start's own CPU (NumPy's, torch's import) is not the learner's
    cpu_seconds += math.ceil(used.ru_utime + used.ru_stime)
    limits = [(resource.RLIMIT_CPU, cpu_seconds), (resource.RLIMIT_FSIZE, output_bytes)]  # SIGXCPU, then SIGKILL
    in_use = _address_space()
    if in_use is not None:  # Linux; macOS does not enforce RLIMIT_AS anyway
        limits.append((resource.RLIMIT_AS, in_use + memory_mb * 2**20))  # on top of NumPy's own mappings
    for limit, value in limits:
        soft, hard = resource.getrlimit(limit)
        if hard == resource.RLIM_INFINITY or value < hard:
            grace = 1 if limit == resource.RLIMIT_CPU else 0  # so a CPU limit kills with SIGXCPU, said as such
            resource.setrlimit(limit, (value, hard if hard != resource.RLIM_INFINITY else value + grace))


def _address_space():
    """Bytes of address space this process maps now, or None where /proc cannot tell."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
    except (OSError, StopIteration, ValueError):
        return None


def _read_writable(stream, size):
    """`size` bytes of the parent's request as a bytearray (fewer at its end): an argument's array is made on
    it without a copy (`wire._array`), so a call's arguments are held once, not twice, in the figures a
    cost check reads."""
    buffer = bytearray(size)
    view, got = memoryview(buffer), 0
    while got < size:
        count = stream.readinto(view[got:])
        if not count:
            break
        got += count
    view.release()
    if got < size:
        del buffer[got:]
    return buffer


# Python's own operations on a learner object, as the parent's proxy asks for them (proxy.LearnerObject):
# len(cache) runs the learner's __len__ through len(), with len()'s own checks, as in the learner's REPL
_OPERATIONS = {"__len__": len, "__bool__": bool, "__iter__": list, "__getitem__": operator.getitem,
               "__eq__": operator.eq}


def _apply(target, name, args, kwargs):
    operation = _OPERATIONS.get(name)
    return operation(target, *args) if operation else getattr(target, name)(*args, **kwargs)


def _serve(requests, replies, path, bridge=None):
    objects = {}  # handle id -> learner object
    module = None
    returned = []  # the last call's result as the learner's code returned it (a tensor before it became an array)

    def call(request, blobs):
        target = module if request["target"] is None else objects[request["target"]]
        args = [decode(arg, blobs, objects.__getitem__) for arg in request["args"]]
        kwargs = {key: decode(value, blobs, objects.__getitem__) for key, value in request["kwargs"].items()}
        name = request["name"]
        if bridge:  # a torch file: tensors sharing the arrays' memory in, arrays out
            sent, kwargs = [bridge.to_torch(arg) for arg in args], bridge.to_torch(kwargs)
            result = _apply(target, name, sent, kwargs)
            returned[:] = [result]
            return bridge.to_numpy(result), [bridge.to_numpy(arg) for arg in sent]  # what the file was handed, after
        result = _apply(target, name, args, kwargs)
        returned[:] = [result]
        return result, args

    def register(obj):
        objects[len(objects)] = obj
        return len(objects) - 1

    while True:
        message = receive(functools.partial(_read_writable, requests))
        if message is None:
            return
        request, blobs = message
        reply_blobs = []
        if request["op"] == "files":  # no answer: a failure shows at the load
            try:
                _write_files(request["paths"], blobs)
            except OSError:
                pass
            continue
        try:
            if request["op"] == "load":
                module = _load(path)
                names = request["names"]
                reply = {"ok": None, "missing": [n for n in names if not callable(getattr(module, n, None))],
                         "signatures": _signatures(module, names)}
            elif request["op"] == "read":  # a result kept by an earlier call, as it is now (a buffer handed back twice)
                value = objects[request["target"]]
                reply = {"ok": encode(bridge.to_numpy(value) if bridge else value, reply_blobs, register)}
            elif request["op"] == "trace":
                reply = {"ok": None, "trace": _trace(lambda: call(request, blobs), path)}
            elif request.get("measured"):
                (result, args), figures = _measured(lambda: call(request, blobs))
                reply = {"ok": encode(result, reply_blobs, register), "figures": figures}
            else:
                result, args = call(request, blobs)
                reply = {"ok": encode(result, reply_blobs, register)}
                if request.get("return_args"):
                    reply["args"] = encode(args, reply_blobs, register)
                if request.get("keep"):  # the very object returned, to read again after later calls
                    reply["kept"] = register(returned[0])
        except BaseException as exc:  # noqa: BLE001 - everything the learner raises is data
            reply_blobs = []
            reply = {"error": _error(exc, path)}
        send(replies, reply, reply_blobs)


@functools.lru_cache(maxsize=None)
def readable():
    """What the learner's code may read: the standard library (not its site-packages) and NumPy (the same list
    for every child: a zygote computes it once for all)."""
    import sysconfig

    paths = []
    for key in ("stdlib", "platstdlib"):
        folder = sysconfig.get_paths()[key]
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        paths += [os.path.join(folder, entry) for entry in entries if entry not in ("site-packages", "dist-packages")]
    numpy_folder = os.path.dirname(np.__file__)
    paths += [numpy_folder, numpy_folder + ".libs", "/dev/null", "/dev/urandom"]
    return tuple(sorted(set(paths)))


def warm_up(bridge=None):
    """NumPy calls of the kinds a kata makes, and a message through the wire format, once, before hello:
    their one-time allocations are then in the baseline the parent reads, not in the learner's figures."""
    a = np.linspace(-1.0, 1.0, 64).reshape(1, 2, 4, 8)
    for x in (a, a.astype(np.float32)):
        s = x @ np.swapaxes(x, -1, -2) / np.sqrt(8)
        s = np.where(np.tri(4, dtype=bool), s, -np.inf)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        np.einsum("bhqk,bhkd->bhqd", e / e.sum(axis=-1, keepdims=True), x).transpose(0, 2, 1, 3).reshape(1, 4, 16)
        np.concatenate([x, x], axis=2), np.stack([x, x]), np.maximum(x, 0), np.isneginf(x), np.errstate(all="ignore")
    blobs = []
    decode(encode((a, [a], 1.0), blobs), blobs)
    if bridge:
        bridge.warm_up(a)


def _trim():
    """Give the C heap's free memory back to the kernel (glibc), so none of it is resident headroom at hello."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def main(argv, applied=(), missing=None):
    request_fd, reply_fd, path, memory_mb, cpu_seconds, output_bytes, folder, _, mode = argv
    requests = os.fdopen(int(request_fd), "rb")
    replies = os.fdopen(int(reply_fd), "wb")
    bridge = torch_bridge if os.environ.get("KATA_FRONTEND") == "torch" else None
    if bridge:  # before the limits: torch's own mappings are not the learner's
        bridge.setup()
    _limit(int(memory_mb), int(cpu_seconds), int(output_bytes))
    _dump_stack_on_signal()
    import isolation

    warm_up(bridge)  # trusted code yet: its one-time allocations, then the free heap given back, before the baseline
    _trim()
    now_applied, now_missing = isolation.restrict(readable() + tuple(bridge.readable() if bridge else ()), [folder])
    applied, missing = list(applied) + now_applied, {**(missing or {}), **now_missing}
    send(replies, {"applied": applied, "missing": missing})
    if mode == "strict" and not set(FULL_ISOLATION) <= set(applied):
        return
    sys.argv = [path]
    _serve(requests, replies, os.path.abspath(path), bridge)

"""A warm zygote: a trusted, single-threaded process that has imported NumPy and the worker once, and forks
each learner's process from itself (a fork instead of an interpreter start and a NumPy import).

Started by `warm.Zygote` with `python -I -B zygote.py FD PARENT_PID` and the child's minimal environment,
nothing else: every child inherits this process's memory and initial environment, so it holds nothing
secret (no reference, no hidden test, none of the parent's environment). It runs no learner code itself.

On its socket (FD, a SOCK_SEQPACKET pair with the parent) it takes two requests:
- spawn: JSON {"argv": child.py's arguments after its two fds, "env", "cwd"} with four fds (request pipe, reply pipe, output file, status pipe).
  It forks; the child walls itself in exactly as `child.py` does (`_become_child`), and the zygote replies
  {"pid"}. When the child ends, the zygote writes its status (Popen's returncode: -signal or the exit code)
  and its CPU time to the status pipe, but keeps it a zombie, so its pid (and process group) stays the parent's.
- release: JSON {"release": pid}: the parent has its status; the zygote reaps it.
When the parent goes (end of file on the socket) it kills every child's process group and exits.
"""

import json
import os
import select
import signal
import socket
import struct
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)  # started with -I: the script's folder is not on the path by itself
import isolation  # noqa: E402
import worker  # noqa: E402 - NumPy and the wire format, once, for every child

sys.path.remove(_HERE)
# What every child would import on its way anyway: loaded once here.
import ctypes, faulthandler, importlib.util, inspect, resource, sysconfig, traceback, tracemalloc  # noqa: E401,E402,F401

STATUS = struct.Struct("=id")  # Popen's returncode, and the CPU seconds the child used


def threads():
    """How many threads this process runs (a fork copies one: the others' locks would stay held)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _become_child(zygote, control, argv, env, cwd, fds, others):
    """In the forked process: the learner's process, as `child.py` would start it. Never returns."""
    try:
        os.setsid()  # its own process group: the parent kills it whole
        isolation.die_with_parent()  # should the zygote die, so does the child (the parent kills it too)
        if os.getppid() != zygote:
            raise SystemExit(1)  # it died before that took hold
        request, reply, output, status = fds
        control.detach()
        for fd in others + [status]:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        keep = sorted({0, 1, 2, request, reply})
        for low, high in zip(keep, keep[1:] + [1 << 20]):
            os.closerange(low + 1, high)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        argv = [str(request), str(reply), *argv]  # as `child.py` is given them, with the fds it has here
        sys.argv = [os.path.join(_HERE, "child.py"), *argv]
        for number in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a fresh interpreter: KeyboardInterrupt
        if "numpy.random" in sys.modules:  # a fresh process would draw its own global seed
            sys.modules["numpy.random"].seed()
        applied, missing = isolation.enter_namespaces(argv[6], int(argv[7]))  # as child.py: the folder, its size
        worker.main(argv, applied, missing)
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except BaseException:  # noqa: BLE001 - a crash of the child's own code: said on its output
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _returncode(pidfd):
    """The child's status, as Popen says it, leaving it a zombie (WNOWAIT)."""
    info = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOWAIT)
    if info is None:
        return None
    return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


def serve(control):
    running = {}  # pidfd -> (pid, status fd)
    ended = {}  # pid -> pidfd: status sent, not yet released by the parent
    released_early = set()
    while True:
        ready, _, _ = select.select([control, *running], [], [])
        for pidfd in [fd for fd in ready if fd in running]:
            pid, status = running.pop(pidfd)
            code = _returncode(pidfd)
            try:
                cpu = time.clock_gettime_ns((~pid << 3) | 2) / 1e9  # the zombie's CPU clock, all its threads
            except OSError:
                cpu = -1.0
            try:
                os.write(status, STATUS.pack(code if code is not None else -signal.SIGKILL, cpu))
            except OSError:
                pass  # the parent has gone
            os.close(status)
            ended[pid] = pidfd
            if pid in released_early:
                released_early.discard(pid)
                _reap(ended, pid)
        if control not in ready:
            continue
        message, fds, _, _ = socket.recv_fds(control, 1 << 16, 4)
        if not message:
            return running, ended
        request = json.loads(message)
        if "release" in request:
            pid = int(request["release"])
            if pid in ended:
                _reap(ended, pid)
            else:
                released_early.add(pid)
            continue
        others = [fd for pidfd, (_, status) in running.items() for fd in (pidfd, status)] + list(ended.values())
        try:
            if len(fds) != 4 or threads() != 1:
                raise OSError(f"{len(fds)} fds, {threads()} threads")
            zygote = os.getpid()
            pid = os.fork()
            if pid == 0:
                _become_child(zygote, control, request["argv"], request["env"], request["cwd"], fds, others)
            running[os.pidfd_open(pid)] = (pid, fds[3])
            for fd in fds[:3]:
                os.close(fd)
            control.send(json.dumps({"pid": pid}).encode())
        except OSError as error:
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"error": str(error)}).encode())


def _reap(ended, pid):
    pidfd = ended.pop(pid)
    try:
        os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
    except ChildProcessError:
        pass
    os.close(pidfd)


def main(argv):
    control = socket.socket(fileno=int(argv[0]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it ends this process by closing the socket
    worker.readable()  # the children's Landlock paths, computed once
    if threads() != 1:
        control.send(json.dumps({"error": f"the zygote runs {threads()} threads: it cannot fork safely"}).encode())
        return
    control.send(json.dumps({"ready": os.getpid()}).encode())
    running, ended = serve(control)
    for pid, _ in running.values():  # the parent has gone: so do its sandboxes
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


if __name__ == "__main__":
    main(sys.argv[1:])

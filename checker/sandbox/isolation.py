"""The kernel's walls around a learner's process (child side; standard library and ctypes only).

Applied by the child to itself, in two steps, before any learner code runs:

1. `enter_namespaces(folder, size)`, first thing, while the process is still single-threaded: a new user
   namespace (the process keeps no capability outside it: even started by root it cannot raise a limit,
   change its uid, or bypass file permissions), a new network namespace (no interface but a down loopback),
   a new IPC namespace, and a mount namespace of its own, where a tmpfs of `size` bytes is mounted over
   `folder`: its only writable place, seen by no other process, freed by the kernel when the process ends.
2. `restrict(read, write)`, once NumPy is loaded: `no_new_privs`; Landlock (ABI 1-7) that allows reading
   only beneath `read`, writing only beneath `write`, no TCP bind or connect, and no signal or abstract
   UNIX socket reaching a process outside the sandbox (so not /proc, not the grader, not other files);
   a seccomp filter that allows only the system calls of `syscalls.py` (an allow-list: threads but no new
   process, no socket, io_uring, namespace, ptrace or mount, and no place to keep bytes outside the process's
   resident memory but its bounded tmpfs: no System V or POSIX shared memory, memfd or memfd_secret, pipe,
   message queue or key, no madvise or mlock): the peak memory the parent reads from the kernel (`VmHWM`) is
   then all the memory the learner's code held. With no child
   process possible, the per-process limits hold for everything the learner's code runs, and killing the
   process ends all of it.

Each step says what it achieved; `Sandbox` reports the result (`full` or `reduced`), and `kata grade`
refuses to run on `reduced` unless told `--insecure`. On macOS or a kernel without Landlock the steps
do what they can and say what is missing.
"""

import ctypes
import os
import platform
import stat
import struct
import sys

if __package__:  # the parent (its tests) imports this module from its package; the child, from beside it
    from checker.sandbox import syscalls
else:
    import syscalls

FULL = ("user-namespace", "network-namespace", "private-tmpfs", "no-new-privs", "landlock-fs", "landlock-net",
        "landlock-scope", "seccomp")
NAMESPACES = FULL[:3]

_SYSCALL_LANDLOCK = {"create": 444, "add_rule": 445, "restrict": 446}  # the same on every architecture
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, _PR_SET_PDEATHSIG = 38, 22, 2, 1
_CLONE_NEWUSER, _CLONE_NEWNET, _CLONE_THREAD = 0x10000000, 0x40000000, 0x00010000
_CLONE_NEWNS, _CLONE_NEWIPC = 0x00020000, 0x08000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18

# Landlock access rights, by the ABI that brought them
_FS = {1: (1 << 13) - 1, 2: 1 << 13, 3: 1 << 14, 5: 1 << 15}  # ABI 1: execute .. make_sym; refer; truncate; ioctl
_READ = (1 << 2) | (1 << 3)  # read_file, read_dir
_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)  # the rights a rule on a file may hold
_EXECUTE = 1 << 0


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _errno_text():
    return os.strerror(ctypes.get_errno())


def enter_namespaces(folder=None, size=0):
    """Move this process into new user, network, IPC and mount namespaces, and mount a tmpfs of `size`
    bytes over `folder` (an empty folder the parent made): (applied, missing: {name: why})."""
    if sys.platform != "linux":
        return [], {name: f"not Linux ({sys.platform})" for name in NAMESPACES}
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET | _CLONE_NEWNS | _CLONE_NEWIPC) == 0:
        applied, missing = ["user-namespace", "network-namespace"], {}
    else:
        why = _errno_text()
        if libc.unshare(_CLONE_NEWUSER) != 0:
            return [], {name: why for name in NAMESPACES}
        return ["user-namespace"], {"network-namespace": why, "private-tmpfs": why}
    why = _private_tmpfs(libc, uid, gid, folder, size) if folder else "no folder to mount it on"
    if why is None:
        applied.append("private-tmpfs")
    else:
        missing["private-tmpfs"] = why
    return applied, missing


def _private_tmpfs(libc, uid, gid, folder, size):
    """The tmpfs over `folder`, its files owned by this process's own user; None, or why it failed."""
    try:  # the same user inside as outside (unmapped, it could create no file)
        for name, text in (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as sink:
                sink.write(text)
    except OSError as error:
        return f"user map: {error.strerror}"
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:  # nothing mounted here reaches out
        return f"mount: {_errno_text()}"
    options = f"size={size},nr_inodes=4096,mode=0700".encode()
    if libc.mount(b"kata", os.fsencode(folder), b"tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, options) != 0:
        return f"mount tmpfs: {_errno_text()}"
    os.chdir(folder)  # the tmpfs, not the folder beneath it
    return None


def die_with_parent():
    """SIGKILL this process when its parent (a zygote that forked it) ends."""
    if sys.platform == "linux":
        _libc().prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)


def landlock_abi():
    """The kernel's Landlock ABI version, 0 where there is none."""
    if sys.platform != "linux":
        return 0
    version = _libc().syscall(_SYSCALL_LANDLOCK["create"], None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(version, 0)


def restrict(read, write):
    """Allow reading beneath `read`, reading and writing beneath `write`, nothing else; then seccomp.
    Returns (applied, missing: {name: why})."""
    if sys.platform != "linux":
        why = f"not Linux ({sys.platform})"
        return [], {name: why for name in FULL if "namespace" not in name}
    libc = _libc()
    applied, missing = [], {}
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0:
        applied.append("no-new-privs")
    else:
        missing["no-new-privs"] = _errno_text()
    landlock_applied, landlock_missing = _landlock(libc, read, write)
    applied += landlock_applied
    missing.update(landlock_missing)
    why = _seccomp(libc)
    if why is None:
        applied.append("seccomp")
    else:
        missing["seccomp"] = why
    return applied, missing


def _landlock(libc, read, write):
    abi = landlock_abi()
    names = ("landlock-fs", "landlock-net", "landlock-scope")
    if abi < 1:
        return [], {name: "the kernel has no Landlock" for name in names}
    handled_fs = sum(bits for version, bits in _FS.items() if version <= abi)
    handled_net = 0b11 if abi >= 4 else 0  # bind_tcp, connect_tcp
    scoped = 0b11 if abi >= 6 else 0  # abstract_unix_socket, signal
    attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    buffer = ctypes.create_string_buffer(attr[:size], size)
    ruleset = libc.syscall(_SYSCALL_LANDLOCK["create"], buffer, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return [], {name: f"landlock_create_ruleset: {_errno_text()}" for name in names}
    try:
        for paths, rights in ((read, _READ), (write, handled_fs & ~_EXECUTE)):
            for path in paths:
                _allow(libc, ruleset, path, rights)
        if libc.syscall(_SYSCALL_LANDLOCK["restrict"], ruleset, ctypes.c_uint32(0)) != 0:
            return [], {name: f"landlock_restrict_self: {_errno_text()}" for name in names}
    finally:
        os.close(ruleset)
    applied = ["landlock-fs"] + (["landlock-net"] if handled_net else []) + (["landlock-scope"] if scoped else [])
    missing = {name: f"Landlock ABI {abi} lacks it" for name in names if name not in applied}
    return applied, missing


def _allow(libc, ruleset, path, rights):
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that is not there needs no rule
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):  # the file opened, not a second look-up of its path
            rights &= _FILE_RIGHTS
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)  # packed path_beneath_attr
        if libc.syscall(_SYSCALL_LANDLOCK["add_rule"], ruleset, ctypes.c_int(1), rule, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule({path}): {_errno_text()}")
    finally:
        os.close(fd)


# --- seccomp ---------------------------------------------------------------------------------------

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_RET_ALLOW, _RET_KILL = 0x7FFF0000, 0x80000000
_LOAD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ARG0 = 16  # offset of the low word of the first argument in seccomp_data
_PR_SET_NAME, _PR_GET_NAME = 15, 16
_EPERM, _ENOSYS = 1, 38


def _errno_ret(number):
    return 0x00050000 | number


def seccomp_program(machine=None):
    """The filter's BPF instructions as (code, jt, jf, k), or None for an architecture it does not know: an
    allow-list (`syscalls.py`), every other call refused (ENOSYS, or EPERM for those refused by name)."""
    machine = machine or platform.machine()
    arch = _AUDIT_ARCH.get(machine)
    if arch is None:
        return None
    allowed, refused = dict(syscalls.ALLOWED[machine]), syscalls.REFUSED[machine]
    clone, clone3, prctl, prlimit = (allowed.pop(name) for name in ("clone", "clone3", "prctl", "prlimit64"))
    allow, eperm = (_RET, 0, 0, _RET_ALLOW), (_RET, 0, 0, _errno_ret(_EPERM))
    program = [(_LOAD, 0, 0, 4), (_JEQ, 1, 0, arch), (_RET, 0, 0, _RET_KILL), (_LOAD, 0, 0, 0)]
    if arch == _AUDIT_ARCH["x86_64"]:  # x32 system calls take another table: refuse them all
        program += [(_JGE, 0, 1, 0x40000000), (_RET, 0, 0, _RET_KILL)]
    program += [(_JEQ, 0, 1, clone3), (_RET, 0, 0, _errno_ret(_ENOSYS))]  # the C library falls back to clone
    program += [(_JEQ, 0, 4, clone), (_LOAD, 0, 0, _ARG0), (_JSET, 1, 0, _CLONE_THREAD), eperm, allow]  # threads only
    program += [(_JEQ, 0, 5, prctl), (_LOAD, 0, 0, _ARG0), (_JEQ, 2, 0, _PR_SET_NAME), (_JEQ, 1, 0, _PR_GET_NAME),
                eperm, allow]  # a thread's name, nothing else
    program += [(_JEQ, 0, 4, prlimit), (_LOAD, 0, 0, _ARG0), (_JEQ, 1, 0, 0), eperm, allow]  # its own limits only
    for number in sorted(refused.values()):
        program += [(_JEQ, 0, 1, number), eperm]
    for number in sorted(allowed.values()):
        program += [(_JEQ, 0, 1, number), allow]
    program += [(_RET, 0, 0, _errno_ret(_ENOSYS))]
    return program


def _seccomp(libc):
    program = seccomp_program()
    if program is None:
        return f"no filter for {platform.machine()}"
    code = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    filters = ctypes.create_string_buffer(code, len(code))
    fprog = struct.pack("@HP", len(program), ctypes.addressof(filters))
    fprog_buffer = ctypes.create_string_buffer(fprog, len(fprog))
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, fprog_buffer, 0, 0) != 0:
        return f"seccomp: {_errno_text()}"
    return None

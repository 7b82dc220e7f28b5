"""The system calls a learner's process may make: an allow-list (child side; standard library only).

Everything the learner's code can reach after `isolation.restrict` is here by name: file work on what Landlock
lets it open, its own memory (no `madvise`, no `mlock`), signals, clocks, threads (a `clone` with CLONE_THREAD
only), its own identity and limits (`prlimit64` on itself only, `prctl` to name a thread only). Any other call
fails with ENOSYS (as a call the kernel lacks: the C library falls back, as it does for `clone3`), and those
below that hold memory outside the figure or the limit, start processes or reach outside fail with EPERM:
System V and POSIX IPC (`shmget`, `msgget`, `mq_open`), `memfd_create` and `memfd_secret`, pipes, sockets,
io_uring, namespaces, ptrace. The numbers are the kernel's own (x86_64: asm/unistd_64.h; aarch64:
asm-generic/unistd.h, its 64-bit names), written out so the child needs no header.
"""

ALLOWED = {  # machine -> name -> number
    "x86_64": {"read": 0, "write": 1, "readv": 19, "writev": 20, "pread64": 17, "pwrite64": 18, "preadv": 295, "pwritev": 296,
        "preadv2": 327, "pwritev2": 328, "lseek": 8, "close": 3, "close_range": 436, "dup": 32, "dup2": 33, "dup3": 292,
        "fcntl": 72, "ioctl": 16, "fstat": 5, "newfstatat": 262, "stat": 4, "lstat": 6, "statx": 332, "fstatfs": 138,
        "statfs": 137, "open": 2, "openat": 257, "openat2": 437, "access": 21, "faccessat": 269, "faccessat2": 439,
        "readlink": 89, "readlinkat": 267, "getdents64": 217, "getcwd": 79, "chdir": 80, "fchdir": 81, "mkdir": 83, "mkdirat":
        258, "rmdir": 84, "unlink": 87, "unlinkat": 263, "rename": 82, "renameat": 264, "renameat2": 316, "symlink": 88,
        "symlinkat": 266, "link": 86, "linkat": 265, "ftruncate": 77, "truncate": 76, "fsync": 74, "fdatasync": 75,
        "fallocate": 285, "umask": 95, "fchmod": 91, "chmod": 90, "fchmodat": 268, "utimensat": 280, "brk": 12, "mmap": 9,
        "munmap": 11, "mprotect": 10, "mremap": 25, "msync": 26, "mincore": 27, "rt_sigaction": 13, "rt_sigprocmask": 14,
        "rt_sigreturn": 15, "rt_sigpending": 127, "rt_sigtimedwait": 128, "rt_sigsuspend": 130, "sigaltstack": 131, "kill":
        62, "tgkill": 234, "tkill": 200, "pause": 34, "alarm": 37, "setitimer": 38, "getitimer": 36, "timer_create": 222,
        "timer_settime": 223, "timer_gettime": 224, "timer_delete": 226, "timer_getoverrun": 225, "clock_gettime": 228,
        "clock_getres": 229, "clock_nanosleep": 230, "nanosleep": 35, "gettimeofday": 96, "time": 201, "times": 100, "clone":
        56, "futex": 202, "futex_waitv": 449, "set_robust_list": 273, "get_robust_list": 274, "set_tid_address": 218, "rseq":
        334, "exit": 60, "exit_group": 231, "sched_yield": 24, "sched_getaffinity": 204, "sched_setaffinity": 203,
        "sched_getparam": 143, "sched_getscheduler": 145, "sched_get_priority_max": 146, "sched_get_priority_min": 147,
        "getpriority": 140, "membarrier": 324, "getcpu": 309, "getrandom": 318, "getpid": 39, "gettid": 186, "getppid": 110,
        "getuid": 102, "geteuid": 107, "getgid": 104, "getegid": 108, "getgroups": 115, "getresuid": 118, "getresgid": 120,
        "getpgrp": 111, "getpgid": 121, "getsid": 124, "uname": 63, "sysinfo": 99, "getrlimit": 97, "prlimit64": 302,
        "getrusage": 98, "select": 23, "pselect6": 270, "poll": 7, "ppoll": 271, "epoll_create1": 291, "epoll_ctl": 233,
        "epoll_wait": 232, "epoll_pwait": 281, "arch_prctl": 158, "prctl": 157, "clone3": 435},
    "aarch64": {"read": 63, "write": 64, "readv": 65, "writev": 66, "pread64": 67, "pwrite64": 68, "preadv": 69, "pwritev": 70,
        "preadv2": 286, "pwritev2": 287, "lseek": 62, "close": 57, "close_range": 436, "dup": 23, "dup3": 24, "fcntl": 25,
        "ioctl": 29, "fstat": 80, "newfstatat": 79, "statx": 291, "fstatfs": 44, "statfs": 43, "openat": 56, "openat2": 437,
        "faccessat": 48, "faccessat2": 439, "readlinkat": 78, "getdents64": 61, "getcwd": 17, "chdir": 49, "fchdir": 50,
        "mkdirat": 34, "unlinkat": 35, "renameat": 38, "renameat2": 276, "symlinkat": 36, "linkat": 37, "ftruncate": 46,
        "truncate": 45, "fsync": 82, "fdatasync": 83, "fallocate": 47, "umask": 166, "fchmod": 52, "fchmodat": 53,
        "utimensat": 88, "brk": 214, "mmap": 222, "munmap": 215, "mprotect": 226, "mremap": 216, "msync": 227, "mincore": 232,
        "rt_sigaction": 134, "rt_sigprocmask": 135, "rt_sigreturn": 139, "rt_sigpending": 136, "rt_sigtimedwait": 137,
        "rt_sigsuspend": 133, "sigaltstack": 132, "kill": 129, "tgkill": 131, "tkill": 130, "setitimer": 103, "getitimer":
        102, "timer_create": 107, "timer_settime": 110, "timer_gettime": 108, "timer_delete": 111, "timer_getoverrun": 109,
        "clock_gettime": 113, "clock_getres": 114, "clock_nanosleep": 115, "nanosleep": 101, "gettimeofday": 169, "times":
        153, "clone": 220, "futex": 98, "futex_waitv": 449, "set_robust_list": 99, "get_robust_list": 100, "set_tid_address":
        96, "rseq": 293, "exit": 93, "exit_group": 94, "sched_yield": 124, "sched_getaffinity": 123, "sched_setaffinity": 122,
        "sched_getparam": 121, "sched_getscheduler": 120, "sched_get_priority_max": 125, "sched_get_priority_min": 126,
        "getpriority": 141, "membarrier": 283, "getcpu": 168, "getrandom": 278, "getpid": 172, "gettid": 178, "getppid": 173,
        "getuid": 174, "geteuid": 175, "getgid": 176, "getegid": 177, "getgroups": 158, "getresuid": 148, "getresgid": 150,
        "getpgid": 155, "getsid": 156, "uname": 160, "sysinfo": 179, "getrlimit": 163, "prlimit64": 261, "getrusage": 165,
        "pselect6": 72, "ppoll": 73, "epoll_create1": 20, "epoll_ctl": 21, "epoll_pwait": 22, "prctl": 167, "clone3": 435},
}
REFUSED = {  # refused with EPERM (said so by name): every other call not allowed gets ENOSYS
    "x86_64": {"socket": 41, "socketpair": 53, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "ptrace": 101, "mount": 165,
        "unshare": 272, "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321, "userfaultfd": 323,
        "perf_event_open": 298, "keyctl": 250, "add_key": 248, "request_key": 249, "io_uring_setup": 425, "io_uring_enter":
        426, "io_uring_register": 427, "io_setup": 206, "madvise": 28, "process_madvise": 440, "memfd_create": 319,
        "memfd_secret": 447, "pipe": 22, "pipe2": 293, "msgget": 68, "semget": 64, "shmget": 29, "shmat": 30, "mq_open": 240,
        "mlock": 149, "mlock2": 325, "mlockall": 151, "splice": 275, "vmsplice": 278, "tee": 276},
    "aarch64": {"socket": 198, "socketpair": 199, "execve": 221, "execveat": 281, "ptrace": 117, "mount": 40, "unshare": 97, "setns":
        268, "process_vm_readv": 270, "process_vm_writev": 271, "bpf": 280, "userfaultfd": 282, "perf_event_open": 241,
        "keyctl": 219, "add_key": 217, "request_key": 218, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register":
        427, "io_setup": 0, "madvise": 233, "process_madvise": 440, "memfd_create": 279, "memfd_secret": 447, "pipe2": 59,
        "msgget": 186, "semget": 190, "shmget": 194, "shmat": 196, "mq_open": 180, "mlock": 228, "mlock2": 284, "mlockall":
        230, "splice": 76, "vmsplice": 75, "tee": 77},
}

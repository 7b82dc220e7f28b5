"""CPU of `kata defend`'s questions (no check): this process, plus the zygote and every child it forked and
reaped (its utime, stime, cutime and cstime in /proc), for a kata's four questions on one file.

    python bench/defend_cpu.py 05 solutions/05_kv_cache.py
"""

import os
import sys
import time


def tree_cpu(pid):
    """utime + stime + cutime + cstime of `pid`, in seconds (its reaped children included)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def main(kata_key, path, count=4, seed=1):
    from checker.engine import catalog
    from checker.practice import defend
    from checker.sandbox import warm

    warm.enable()
    kata, source = catalog.find(kata_key), open(path, "rb").read()
    defend.spec(kata)
    zygote = warm.current()
    zygote.spawn  # started on first use: count its start too
    ours, zygote_before, began = time.process_time(), 0.0, time.monotonic()
    asked = defend.questions(kata, path, source, count=count, seed=seed)
    zygote_after = tree_cpu(zygote.process.pid)
    cpu = time.process_time() - ours + zygote_after - zygote_before
    print(f"{kata} {path}: {len(asked)} questions ({', '.join(q.kind for q in asked)}), "
          f"{cpu:.2f} s of CPU (this process {time.process_time() - ours:.2f} s, sandbox children "
          f"{zygote_after - zygote_before:.2f} s, zygote start included), {time.monotonic() - began:.2f} s wall")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *map(int, sys.argv[3:]))

"""Watching a learner's file: call back each time its content changes, until told to stop.

Time is read and waited through a `Clock`, so tests drive the loop with a fake one and never wait.
"""

import hashlib
import time
from pathlib import Path

POLL_SECONDS = 0.5


class Clock:
    """Real time. A test passes any object with the same three methods."""

    def monotonic(self):
        return time.monotonic()

    def wall(self):
        return time.time()

    def sleep(self, seconds):
        time.sleep(seconds)


class FileWatch:
    """Says whether a file's content changed since it last looked (by a hash, so a save with nothing new,
    or a `touch`, is no change). A missing file (an editor between its delete and its write) is no change."""

    def __init__(self, path, baseline=False):
        self.path = Path(path)
        self._digest = self._read() if baseline else None

    def _read(self):
        try:
            return hashlib.sha256(self.path.read_bytes()).digest()
        except OSError:
            return None

    def changed(self):
        digest = self._read()
        if digest is None or digest == self._digest:
            return False
        self._digest = digest
        return True


def loop(path, on_change, *, poll=POLL_SECONDS, clock=None, deadline=None, max_checks=None, baseline=False,
         on_tick=None):
    """Call `on_change(path)` each time the file's content changes (and first, unless `baseline`).

    Returns why it stopped: "done" (on_change returned True), "deadline" (`clock.monotonic()` reached
    `deadline`) or "max-checks" (on_change ran `max_checks` times). `on_tick()` runs between looks.
    KeyboardInterrupt is the caller's to catch.
    """
    clock = clock or Clock()
    watched = FileWatch(path, baseline)
    checks = 0
    while True:
        if deadline is not None and clock.monotonic() >= deadline:
            return "deadline"
        if watched.changed():
            checks += 1
            if on_change(path):
                return "done"
            if max_checks is not None and checks >= max_checks:
                return "max-checks"
        if on_tick:
            on_tick()
        wait = poll if deadline is None else min(poll, max(0.0, deadline - clock.monotonic()))
        clock.sleep(wait)

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


STOP = object()  # what a `follow` step returns to end the loop


def follow(paths, start, step, *, poll=POLL_SECONDS, clock=None, max_checks=None):
    """Watch several files (`paths`: key -> path), rustlings-style: call `step(start)` now, then
    `step(key)` whenever the file of `key` changes. A step returns None (wait for saves), another key
    (step it right away: the next kata after a pass) or STOP. Returns "done" or "max-checks".
    """
    clock = clock or Clock()
    watches = {key: FileWatch(path, baseline=True) for key, path in paths.items()}
    checks, due = 0, start
    while True:
        while due is not None:
            if due in watches:
                watches[due].changed()  # what is checked now is the baseline of its file
            checks += 1
            due = step(due)
            if due is STOP:
                return "done"
            if max_checks is not None and checks >= max_checks:
                return "max-checks"
        due = next((key for key, watched in watches.items() if watched.changed()), None)
        if due is None:
            clock.sleep(poll)

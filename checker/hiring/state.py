"""The state file of `kata grade`: one line per finished workspace, signed with a key kept beside it, so an
interrupted batch resumes where it stopped and a line the grader did not write is ignored."""

import hashlib
import hmac
import json
import os
from pathlib import Path

from checker.hiring import roster as rostering

DEFAULT_STATE = Path("kata-grade.state.jsonl")


def state_path(report=None):
    """The state file: beside the report (`PATH.state.jsonl`), else in the current folder."""
    return Path(f"{report}.state.jsonl") if report else DEFAULT_STATE


def holds_a_batch(state):
    """Whether the state file holds an earlier batch (which grading without resume replaces)."""
    return state.is_file() and state.stat().st_size > 0


def state_key(state):
    """The key that signs the state file's lines, kept beside it (readable by this user only, and by no
    sandbox): made on first use."""
    state.parent.mkdir(parents=True, exist_ok=True)
    return rostering.private_key(state.with_name(state.name + ".key"))


def _key_text(key):
    return json.dumps(key)


def _sign(key, entry):
    return hmac.new(key, json.dumps(entry, sort_keys=True).encode(), hashlib.sha256).hexdigest()


def _read_state(state, key):
    """({key text: entry} of every complete line this grader signed, how many whole lines were not signed by
    it); a line cut short by a crash is left out without a word."""
    entries, ignored = {}, 0
    try:
        lines = state.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return entries, ignored
    for line in lines:
        try:
            signed = json.loads(line)
        except ValueError:
            continue
        try:
            entry, mac = signed["entry"], signed["mac"]
            if not hmac.compare_digest(_sign(key, entry), str(mac)):
                raise ValueError
            if "interrupted" in entry:  # the grader's own note of a stop (SIGTERM, SIGHUP, Ctrl-C)
                continue
            entries[entry["key"]] = entry
        except (ValueError, KeyError, TypeError):
            ignored += 1
    return entries, ignored


def _rewrite_state(state, key, entries):
    """Start the state file with `entries` only (none: a fresh batch), replacing it in one step."""
    state.parent.mkdir(parents=True, exist_ok=True)
    partial = state.with_name(state.name + ".tmp")
    with partial.open("w", encoding="utf-8") as sink:
        for entry in entries:
            sink.write(json.dumps({"entry": entry, "mac": _sign(key, entry)}) + "\n")
    os.replace(partial, state)


def _append(sink, key, entry):
    sink.write(json.dumps({"entry": entry, "mac": _sign(key, entry)}) + "\n")
    sink.flush()
    os.fsync(sink.fileno())  # a finished workspace survives a crash or a power cut

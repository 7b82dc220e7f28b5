"""Ctrl-C in a real terminal (a pty): the quiz prints the score so far and the replay command, the mock its
report; both exit 1 (README: 0 only for passed); watch leaves with 0."""

import fcntl
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time

import pytest

KATA = [sys.executable, "-m", "checker"]


def in_a_terminal(args, cwd, wait_for, timeout=30):
    """Run `kata args` on a pty, press Ctrl-C once `wait_for` shows; (exit code, everything it wrote)."""
    leader, follower = pty.openpty()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80", "LINES": "40"}
    def controlling_terminal():  # a session of its own, with the pty as its terminal: Ctrl-C reaches it
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(KATA + args, stdin=follower, stdout=follower, stderr=follower, cwd=cwd, env=env,
                               preexec_fn=controlling_terminal)
    os.close(follower)
    seen, pressed, deadline = b"", False, time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if not pressed and wait_for.encode() in seen:
            time.sleep(0.3)
            os.write(leader, b"\x03")  # the terminal turns it into SIGINT for the foreground process
            pressed = True
        if process.poll() is not None and not ready:
            break
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    os.close(leader)
    return process.wait(timeout=5), seen.decode(errors="replace")


@pytest.fixture
def terminal_workspace(workspace):
    os.environ.pop("PYTEST_XDIST_WORKER", None)
    return workspace


def test_ctrl_c_in_the_quiz_prints_the_score_so_far_and_the_replay_command(terminal_workspace):
    code, text = in_a_terminal(["quiz", "-n", "3", "--seed", "4"], terminal_workspace, "Your answer")
    assert code == 1, text
    text = " ".join(text.split())  # wrapped at 80 columns
    assert "Stopped. Score so far: 0 of 0 answered (3 asked)" in text
    assert "`kata quiz -n 3 --seed 4` asks the same questions again" in text and "Aborted!" not in text


def test_ctrl_c_in_a_mock_writes_the_report_and_exits_1(terminal_workspace):
    code, text = in_a_terminal(["mock", "--kata", "02", "--poll", "0.1"], terminal_workspace, "Strict mode")
    assert code == 1, text
    assert "Stopped." in text and "| status | stopped |" in text and "Traceback" not in text
    assert list((terminal_workspace / ".kata" / "mocks").glob("*.json"))

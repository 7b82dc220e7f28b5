"""Leaves a child process running, holding the checker's pipes, then loops."""
import subprocess
import sys

subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], close_fds=False)


def attention_scores(q, k):
    while True:
        pass

"""Prints without end, on stdout and stderr."""
import sys


def attention_scores(q, k):
    while True:
        print("x" * 10_000)
        print("y" * 10_000, file=sys.stderr)

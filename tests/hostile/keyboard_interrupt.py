"""Raises KeyboardInterrupt from inside a call."""


def attention_scores(q, k):
    raise KeyboardInterrupt

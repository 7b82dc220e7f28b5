"""Kata 10, debug the decoder: the bugs it plants, the probes that count them, its tests and its files."""

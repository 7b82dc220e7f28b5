"""The answers of kata 06's quiz questions, computed from their drawn values (prompts.yaml names them)."""

import math


def theta(i, d, base):
    """Radians per position of pair i: base ** (-2i / d)."""
    return base ** (-2 * i / d)


def pair_angle(i, p, d, base):
    """The angle pair i turns by at position p."""
    return p * theta(i, d, base)


def partner_channel(c, d):
    """Half-split pairing: channel c turns with channel c + d/2 (or c - d/2)."""
    return (c + d // 2) % d


def slowest_wavelength(d, base):
    """Positions the slowest pair (i = d/2 - 1) needs for one full turn: 2 pi / theta."""
    return 2 * math.pi / theta(d // 2 - 1, d, base)


def equivalent_key_position(m, n):
    """rope(q, m) . rope(k, n) = rope(q, 0) . rope(k, n - m): only the distance counts."""
    return n - m


def decode_query_position(t, n_k, i):
    """Query i of t new ones over n_k keys sits at position n_k - t + i."""
    return n_k - t + i


def frequencies_count(d):
    """One frequency per pair of channels."""
    return d // 2


def fastest_turns(p):
    """Full turns pair 0 (one radian per position) has made by position p."""
    return math.floor(p / (2 * math.pi))

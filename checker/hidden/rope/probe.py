"""Running kata 06's rope in the sandbox, and probing it with one-hot rows: rope of channel j alone shows
which channel j turned into and by what angle, so a wrong pairing or table is named with the channels it used."""

import numpy as np

from checker.hidden.rope.variants import frequencies
from checker.engine.testkit import Failure, call_text, close, one_array


def rope_call(x, positions, base):
    return call_text("rope", x=x, positions=np.asarray(positions), **({} if base is None else {"base": base}))


def run_rope(kata, x, positions, base=None):
    """The learner's rope(x, positions[, base]) as an array of x's shape, and the call as text."""
    call = rope_call(x, positions, base)
    got = kata.rope(x, positions) if base is None else kata.rope(x, positions, base)
    got = one_array(got, call)
    if got.shape != np.shape(x):
        raise Failure(f"{call} returned shape {got.shape}, expected {np.shape(x)}: rope keeps x's shape")
    if got.dtype.kind != "f":
        raise Failure(f"{call} returned dtype {got.dtype}, expected floating point")
    return got, call


class Probe:
    """rope of the one-hot rows e_0 ... e_{d-1} at one position: row j of `turned` is where channel j went."""

    def __init__(self, kata, d, position, base=None):
        self.d, self.position, self.base = d, position, base
        x = np.eye(d)[:, None, :]  # (d, 1, d): one example per channel, one position
        got, self.call = run_rope(kata, x, [position], base)
        self.turned = np.asarray(got, np.float64)[:, 0, :]  # (d, d)
        self.noise = 1e-4  # float32 inside is honest: anything below this is rounding

    def partners(self):
        """For each channel, the other channel it turned into the most (None if it stayed put)."""
        off = np.abs(self.turned) * (1 - np.eye(self.d))
        return [int(np.argmax(row)) if row.max() > self.noise else None for row in off]

    def is_identity(self):
        return close(self.turned, np.eye(self.d), 0, self.noise).all()

    def pairing_failure(self):
        """A Failure naming rope-wrong-pairing when some channel turned into another than j +- d/2, else None."""
        half = self.d // 2
        for channel, partner in enumerate(self.partners()):
            want = (channel + half) % self.d
            if partner is not None and partner != want:
                return Failure(f"{self.call} with x the one-hot rows of channels 0 ... {self.d - 1}: channel {channel} "
                               f"was rotated with channel {partner}; the contract pairs channel {channel} with channel "
                               f"{'d/2 = ' if channel < half else ''}{want}"
                               f"{'' if channel < half else f' (= {channel} - d/2)'} (half-split, as Llama / GPT-NeoX "
                               "rotate_half, not channels 2i and 2i + 1)", "rope-wrong-pairing", exact=True)
        return None

    def channel_angles(self):
        """The angle each output channel turned by, read from the one-hot rows (a rotation gives its pair's)."""
        half, t = self.d // 2, self.turned
        i = np.arange(half)
        first = np.arctan2(-t[i + half, i], t[i, i])  # out[i] = x[i] cos - x[i + d/2] sin
        second = np.arctan2(t[i, i + half], t[i + half, i + half])  # out[i + d/2] = x[i + d/2] cos + x[i] sin
        return np.concatenate([first, second])

    def interleaved_table_failure(self):
        """A Failure (naming nothing) when the channels turn by a cos/sin table laid out for interleaved pairs
        (angle of channel c = p * theta_{c // 2}, np.repeat): pairs (i, i + d/2) whose two channels turn
        differently. The pairing itself is right there, so rope-wrong-pairing (SPEC: which channels are paired) is
        not its name: a neighbouring mistake, a rival until the catalogue gains it."""
        got = self.channel_angles()
        theta = frequencies(self.d, 10000.0 if self.base is None else self.base) * self.position
        same = close(np.cos(got), np.cos(np.repeat(theta, 2)), 1e-4, 1e-4) & \
            close(np.sin(got), np.sin(np.repeat(theta, 2)), 1e-4, 1e-4)
        if not same.all() or close(np.repeat(theta, 2), np.concatenate([theta, theta]), 0, 1e-9).all():
            return None
        half = self.d // 2
        i = next(i for i in range(half) if not np.isclose(got[i], got[i + half]))
        return Failure(f"{self.call} with x the one-hot rows: channel {i} turned by {radians(got[i])} radians and "
                       f"its partner, channel {i + half}, by {radians(got[i + half])}; the two channels of a pair "
                       f"share one angle, theta_{i} = {radians(theta[i])} here. The cos/sin table repeats each angle "
                       "for channels 2i and 2i + 1 (np.repeat), which is the interleaved layout: for half-split "
                       "pairs it is np.concatenate([angles, angles], -1)")

    def pair(self, i):
        """(cos, sin) that pair i applied to its first channel, and to its second: equal for a rotation."""
        half = self.d // 2
        t = self.turned
        return (t[i, i], t[i, i + half]), (t[i + half, i + half], -t[i + half, i])


def radians(value):
    return f"{value:.4g}"


def angles_text(values):
    return "[" + ", ".join(radians(v) for v in values) + "]"



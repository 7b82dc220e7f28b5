"""How close honest, independent answers of each kata are to one another: the line a pair must pass to be flagged.

The figures are every pair among each kata's honest files (its reference, the correct variants of
checker/hidden/<slug>/correct/ and the PyTorch correct file of torch/), scored by similarity.py as it
scores candidates. They are data, not code: `python bench/similarity_figures.py --write` derives
similarity_honest.yaml, and tests/test_similarity.py checks that the file is what the current detector and
files give. Only `kata grade` reads it (once, lazily): `kata check` never imports this module.

A pair of candidates (or a candidate and the reference) is flagged when its figure passes its kata's line:
the closest honest pair's figure plus MARGIN, within [FLOOR, CEILING]. Its rank is said as the share of the
kata's honest pairs it is closer than ("closer than 100 % of kata 05's 45 honest pairs"): computed here.
"""

import itertools
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("similarity_honest.yaml")
MARGIN = 0.1  # above the closest honest pair: measured leave-one-file-out by bench/similarity_figures.py
FLOOR = 0.7  # a kata whose honest answers are all far apart still needs this much in common to flag a pair
CEILING = 0.97  # a kata with two near-identical honest answers: a copy is still flagged at this
FORMAT = 1


@dataclass(frozen=True)
class Honest:
    """One kata's honest-pair figures, sorted."""
    kata: str
    figures: tuple

    @property
    def line(self):
        """The figure at or above which a pair of this kata is flagged."""
        closest = self.figures[-1] if self.figures else 0.0
        return round(min(max(closest + MARGIN, FLOOR), CEILING), 3)

    def closer_than(self, figure):
        """The share (0..1) of this kata's honest pairs strictly less similar than `figure`."""
        return sum(value < figure for value in self.figures) / len(self.figures) if self.figures else 0.0

    def quantile(self, share):
        """The figure at `share` (0..1) of the sorted honest pairs (nearest rank)."""
        if not self.figures:
            return 0.0
        return self.figures[min(len(self.figures) - 1, max(0, round(share * len(self.figures) + 0.5) - 1))]

    def said(self, figure):
        """"closer than 100 % of kata 05's 45 honest pairs (the closest 0.81)"."""
        if not self.figures:
            return f"kata {self.kata} has no honest pairs measured"
        return (f"closer than {100 * self.closer_than(figure):.1f} % of kata {self.kata}'s {len(self.figures)} "
                f"honest pairs (the closest {self.figures[-1]:.2f})")


def honest_files(kata):
    """The kata's honest files: its reference, correct variants and PyTorch correct file."""
    torch = kata.folder / "torch" / "correct.py"
    return [kata.solution_path] + kata.files("correct") + ([torch] if torch.is_file() else [])


def measure(kata, figure):
    """The honest-pair figures of `kata`, sorted; `figure(a, b, kata_id)` scores two sources (None: too small)."""
    sources = [path.read_bytes() for path in honest_files(kata)]
    found = (figure(a, b, kata.id) for a, b in itertools.combinations(sources, 2))
    return tuple(sorted(value for value in found if value is not None))


@lru_cache(maxsize=None)
def table():
    """{kata id: Honest}, as similarity_honest.yaml holds them ({} when the file is missing or malformed)."""
    import yaml

    try:
        data = yaml.safe_load(DATA.read_text(encoding="utf-8"))
        return {str(kata): Honest(str(kata), tuple(float(v) for v in values))
                for kata, values in data["katas"].items()} if data.get("format") == FORMAT else {}
    except (OSError, yaml.YAMLError, AttributeError, KeyError, TypeError, ValueError):
        return {}


def of(kata_id):
    return table().get(kata_id) or Honest(kata_id, ())


def written(katas, figure):
    """The text of similarity_honest.yaml for `katas` as `figure` scores them now."""
    lines = [f"# Honest-pair similarity figures per kata: written by `python bench/similarity_figures.py --write`.",
             "# Do not edit: tests/test_similarity.py checks it against the detector and the files.",
             f"format: {FORMAT}", "katas:"]
    for kata in katas:
        lines.append(f'  "{kata.id}": [{", ".join(f"{value:.3f}" for value in measure(kata, figure))}]')
    return "\n".join(lines) + "\n"

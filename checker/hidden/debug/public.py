"""The public checks of kata 10 are kata 05's (the fixed file meets its contract); `stub` is the planted
file a pack hands out: the bugs drawn from the pack's seed."""

from checker.hidden.debug import plants
from checker.hidden.kv_cache.public import cases, check

__all__ = ["cases", "check", "stub"]


def stub(seed):
    """The clean decoder with the bugs planted for `seed` (the shipped stub's four for the default seed)."""
    from checker.engine.runner import DEFAULT_SEED

    return plants.source_with(plants.planted(seed, DEFAULT_SEED))

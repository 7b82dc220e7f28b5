"""Kata 10's hints past the written ones: they depend on which planted bugs the learner's file still has."""

from checker.hidden.debug import nearest, plants


def deeper(details, fix_of):
    """[where one remaining bug is, then its id and fix] from a check's `details`; [] when none remains
    or the check cannot tell. `fix_of(bug_id)` is the catalogue's one-line fix."""
    remaining = details.get("remaining")
    if not remaining:
        return []
    plant = plants.BY_BUG[remaining[0]]
    where = "The one bug left" if len(remaining) == 1 else f"One of the {len(remaining)} bugs left"
    return [f"{where} is in {plant.area}: read those lines against the contract in their docstring.",
            f"That bug is `{plant.bug}` (the catalogue of katas 02-05). The fix: {fix_of(plant.bug)}"]


def unexplained(details):
    """Why the file gives no deeper hint when no mix of the planted bugs explains it, naming the site."""
    found = details.get("site")
    if found and found[3] is None:  # the function held no plant: an edit broke what was right
        return (f"computes what no mix of the planted bugs computes in {nearest.text(found)}, which held no "
                "planted bug: an edit there changed a right line (read it against the contract in its docstring)")
    where = f" in {nearest.text(found)}" if found else ""
    return (f"computes what no mix of the planted bugs computes{where}: an edit there changed a line into "
            "something that is neither the planted bug nor its fix (or fixed it halfway)")

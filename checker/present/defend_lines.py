"""The one-line mentions of `kata defend` elsewhere: after a pass, in `kata list`, in `kata review`'s plan.
No NumPy here: `kata list` and the plan read only the progress record."""


def hint_line(kata_id, file=None):
    """After a pass (kata check, the %%kata cell): the command that asks about the file, no link."""
    return f"defend it: `kata defend {kata_id}" + (f" --file {file}" if file else "") + "`"


def defence_line(record):
    """`kata list`: the latest defence score of each kata, one line (None: no defence yet)."""
    if not record.defence:
        return None
    return "Defended: " + ", ".join(f"{kata_id} {e['right']}/{e['asked']}" for kata_id, e in
                                     sorted(record.defence.items())) + \
        " (`kata defend ID`; missed questions join `kata review`)"


def review_lines(record):
    """`kata review`'s plan: each kata whose latest defence missed questions, and the command that asks them
    again (the same seed asks the same questions of the same file)."""
    lines = [f"  {kata_id}: missed {e['missed']} of {e['asked']} defence questions about your file: "
             f"`kata defend {kata_id} -n {e['count']} --seed {e['seed']}` asks them again"
             for kata_id, e in sorted(record.defence.items()) if e["missed"]]
    return ["", "Defend again:", *lines] if lines else []

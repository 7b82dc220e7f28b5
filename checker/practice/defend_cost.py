"""`kata defend`'s cost questions: a figure of the learner's own code read from the kernel as the checks read it
(`Sandbox.measure`: the child's peak since hello), each in a fresh child of its own, so its peak is its own:
`peak`, the bytes beyond the measured call's inputs in the entry's unit; `growth`, how that extra memory changes
between two sizes, asked as a choice. Where the entry has a `baseline` (trusted code that only makes a result of the
right shape), its figure is taken off: the checker's own copies of what goes in and out cancel out."""

import functools
import os

from checker.engine.questions import Question
from checker.practice import defend_run as run
from checker.practice.quiz import Asked


def costs(kata, path, source, definition, count):
    """The kata's first `count` cost questions, each figure measured now on this file."""
    from checker.present import defend_text as text
    from checker.sandbox import LearnerError, SandboxError

    found = []
    for entry in (definition.get("cost") or [])[:count]:
        try:
            figure, extra = cost_figure(path, source, entry, kata.id)
        except (LearnerError, SandboxError, KeyError) as error:
            if os.environ.get("KATA_DEBUG"):
                raise
            continue  # a figure the kernel could not give, or a file that cannot run it: no question
        call = run.calls_of({"calls": [{"id": entry["id"], "say": entry["say"],
                                         "steps": entry.get("steps") or entry["large"]}]})[0]
        prompt = text.cost_prompt(entry)
        if entry["kind"] == "growth":
            right = text.growth_choice(figure, entry)
            choices = [str(c) for c in entry["choices"]]
            explanation = text.cost_explanation(entry, figure, extra)
            question = Question(f"defend-cost-{entry['id']}", kata.slug, "choice", prompt, explanation,
                                choices=tuple({"text": c, "correct": c == right} for c in choices))
            asked = Asked(question, prompt, choices.index(right), explanation, choices)
            found.append(_question("cost", None, call, asked, answer=right))
            continue
        decimals, tolerance = int(entry.get("decimals", 1)), float(entry["tolerance"])
        expected = round(figure, decimals)
        explanation = text.cost_explanation(entry, figure, extra)
        question = Question(f"defend-cost-{entry['id']}", kata.slug, "templated", prompt, explanation,
                            tolerance=tolerance, decimals=decimals)
        asked = Asked(question, prompt, expected, explanation, exact=figure)
        found.append(_question("cost", None, call, asked, answer=expected, tolerance=tolerance))
    return found


def _extra(path, source, entry, steps):
    """The kernel's peak for the steps in a fresh child, beyond the measured call's input arrays."""
    call = run.calls_of({"calls": [{"id": entry["id"], "say": entry["say"], "steps": steps}]})[0]
    figures = run.measured(path, source, call)
    return max(figures["peak_bytes"] - run.input_bytes(call), 0), figures["peak_bytes"]


@functools.lru_cache(maxsize=None)
def _baseline(kata_id, entry_id, size):
    """What the entry's `baseline` (trusted code that only makes a result of the right shape) holds: the
    checker's own copies of the arrays in and out, which cancel out of the learner's figure. Once per process."""
    from checker.engine import catalog
    from checker.practice.defend import spec

    kata = catalog.find(kata_id)
    entry = next(e for e in spec(kata)["cost"] if e["id"] == entry_id)
    return _extra(kata.solution_path, str(entry["baseline"]).encode(), entry, entry[size])[0]


def cost_figure(path, source, entry, kata_id=None):
    """(the figure, what it was made of) for one `cost` entry: `peak`, the peak bytes beyond the measured call's
    inputs, in `unit_bytes`; `growth`, how many bytes that extra memory grows by from the small size to the large."""
    def base(size):
        return _baseline(kata_id, entry["id"], size) if entry.get("baseline") and kata_id else 0

    if entry["kind"] == "peak":
        extra, peak = _extra(path, source, entry, entry["steps"])
        return (extra - base("steps")) / float(entry["unit_bytes"]), {"peak_bytes": peak, "extra": extra,
                                                                       "baseline": base("steps")}
    extras = [_extra(path, source, entry, entry[size])[0] - base(size) for size in ("small", "large")]
    return extras[1] - extras[0], {"small": extras[0], "large": extras[1]}


def _question(*args, **kwargs):
    from checker.practice.defend import DefenceQuestion

    return DefenceQuestion(*args, **kwargs)

"""`kata defend`'s cost questions: a figure of the learner's own code read from the kernel as the checks read it
(`Sandbox.measure`: the child's peak since hello), each in a fresh child of its own, so its peak is its own:
`peak`, the bytes beyond the measured call's inputs in the entry's unit; `growth`, how that extra memory changes
between two sizes, asked as a choice."""

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
            figure, extra = cost_figure(path, source, entry)
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


def cost_figure(path, source, entry):
    """(the figure, what it was made of) for one `cost` entry: `peak`, the peak bytes beyond the measured call's
    inputs, in `unit_bytes`; `growth`, how many bytes that extra memory grows by from the small size to the large."""
    if entry["kind"] == "peak":
        call = run.calls_of({"calls": [{"id": entry["id"], "say": entry["say"], "steps": entry["steps"]}]})[0]
        figures = run.measured(path, source, call)
        extra = max(figures["peak_bytes"] - run.input_bytes(call), 0)
        return extra / float(entry["unit_bytes"]), {"peak_bytes": figures["peak_bytes"], "extra": extra}
    extras = []
    for steps in (entry["small"], entry["large"]):
        call = run.calls_of({"calls": [{"id": entry["id"], "say": entry["say"], "steps": steps}]})[0]
        figures = run.measured(path, source, call)
        extras.append(max(figures["peak_bytes"] - run.input_bytes(call), 0))
    return extras[1] - extras[0], {"small": extras[0], "large": extras[1]}


def _question(*args, **kwargs):
    from checker.practice.defend import DefenceQuestion

    return DefenceQuestion(*args, **kwargs)

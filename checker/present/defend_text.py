"""How `kata defend`'s questions read: prompts, choices and explanations made from what the runs gave, and the
terminal's and the review page's lines. Rendering only: which question to ask is checker/practice/defend.py's.
Candidate-derived text (the file's lines) is escaped for its channel by the callers that print it."""

import re

import numpy as np

from checker.present.escape import visible

SIGNIFICANT = 3  # digits of a value shown in a choice: enough to tell the mutants apart, short enough to read


# --- values and outcomes ---------------------------------------------------------------------------

def number(x):
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")):
        return str(x)
    text = f"{x:.{SIGNIFICANT}g}"
    return "0" if text == "-0" else text


def values_text(value, most=8):
    """A value as a short list: `[0.731, 0.269]`, nested for 2-D, `(tokens, score)` for a tuple."""
    if isinstance(value, tuple):
        return "(" + ", ".join(values_text(v, most) for v in value) + ")"
    if isinstance(value, list) and not all(isinstance(v, (int, float)) for v in value):
        return "[" + ", ".join(values_text(v, most) for v in value) + "]"
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        return visible(str(value))[:60]
    if array.ndim == 0:
        return number(array)
    if array.ndim >= 2:
        return "[" + ", ".join(values_text(row, most) for row in array[:4]) + (", ...]" if len(array) > 4 else "]")
    items = [number(x) for x in array[:most]]
    return "[" + ", ".join(items) + (", ..." if array.size > most else "") + "]"


def outcome_text(outcome, row, same=False):
    """An outcome as a choice reads: its error, or its values (the asked row's); `same`: it equals the file's own
    outcome as written (the caller compared them), so it reads "the same as now: ..."."""
    if outcome.error == "timeout":
        return "it never returns (stopped by the time limit)"
    if outcome.error == "died":
        return "the process dies"
    if outcome.is_error:
        return f"an error ({visible(outcome.error)[:60]})"  # the type's name is the child's to set
    value = outcome.value
    if row is not None:
        shape = np.shape(value)
        if len(shape) != len(row) + 1 or any(i >= n for i, n in zip(row, shape)):
            return f"a result of shape {shape}"
        value = value[row]
    shown = values_text(value)
    return f"the same as now: {shown}" if same else shown


def fillers(mine, row):
    """Wrong answers of the forms mutants give, for when too few mutants gave distinct ones."""
    found = ["an error (ValueError)"]
    if not mine.is_error:
        value = mine.value[row] if row is not None else mine.value
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return found
        found = [values_text(np.full(array.shape, np.nan)), *found, values_text(np.zeros(array.shape))]
    return found


def _where(row):
    return "" if row is None else f" (row {', '.join(str(i) for i in row)} of the result)"


def what_if_prompt(edit, call, row):
    line = visible(edit.old)
    return (f"Line {edit.line} of your file: `{line}`\n"
            f"{_capital(visible(edit.description))}, what would {call.say} be{_where(row)}?")


def what_if_explanation(edit, call, mine, theirs, row):
    changed = [(line, text.strip()) for line, text in edit.changes if text.strip()] or [(edit.line, edit.new)]
    lines = " and ".join(f"line {line} as `{visible(text)}`" for line, text in changed[:3])
    if edit.kind == "remove" and edit.last > edit.line:  # the block the question removed, not its first line
        lines = f"lines {edit.line}-{edit.last} removed (left as `pass`)"
    return (f"Run in the sandbox: as written, {call.say} is {outcome_text(mine, row)}{_where(row)}; "
            f"with {lines}, it is {outcome_text(theirs, row)}.")


def _capital(text):
    return text[:1].upper() + text[1:]


# --- predict ---------------------------------------------------------------------------------------

def _array(report):
    return np.array(report["values"][:report["size"]], dtype=np.float64).reshape(report["shape"])


def predict_form(report):
    """("values", numbers to 2 decimals) for a small finite value, ("choice", its text) for a small one with
    NaN or inf, ("shape", the shape) otherwise; ("other", None) for what is no array of numbers."""
    if report["kind"] not in "biuf" or len(report["values"]) < min(report["size"], 8):
        return "other", None
    if 0 < report["size"] <= 4:
        array = _array(report)
        if np.isfinite(array).all():
            return "values", tuple(round(float(x), 2) + 0.0 for x in array.ravel())
        return "choice", f"{values_text(array)} (shape {tuple(report['shape'])})"
    return "shape", tuple(report["shape"])


def value_fillers(report):
    array = _array(report)
    shapes = {tuple(report["shape"]), (array.size,), (array.size, 1)}
    found = []
    for shape in sorted(shapes):
        for fill in (array, np.zeros_like(array), np.full_like(array, np.nan), np.full_like(array, -np.inf)):
            found.append(f"{values_text(np.reshape(fill, shape))} (shape {shape})")
    return found


def _as_list(kind):
    return "as a list of 1 for True and 0 for False" if kind == "b" else "its values as a list, 2 decimals"


def predict_prompt(probe, call, form, report_kind="f"):
    when = " the first time it runs" if probe.in_loop else ""
    asks = {"shape": f"what shape does `{probe.name}` have right after it{when}",
            "values": f"what does `{probe.name}` hold right after it{when} ({_as_list(report_kind)})",
            "choice": f"what does `{probe.name}` hold right after it{when}"}[form]
    return f"Line {probe.line} of your file: `{visible(probe.code)}`\nFor {call.say}, {asks}?"


def predict_explanation(probe, call, report, form):
    shown = f" holding {values_text(_array(report))}" if report["size"] <= 8 else ""
    return (f"Traced in the sandbox on {call.say}: after line {probe.line}, `{probe.name}` has shape "
            f"{tuple(report['shape'])}{shown}.")


# --- cost ------------------------------------------------------------------------------------------

def cost_prompt(entry):
    return " ".join(str(entry["prompt"]).format(say=entry["say"], tolerance=entry.get("tolerance", "")).split())


def growth_choice(delta, entry):
    return str(entry["choices"][0] if delta < float(entry["flat_below"]) else entry["choices"][1])


def mib(n):
    return f"{n / 2**20:.2f} MiB"


def cost_explanation(entry, figure, extra):
    note = f" {' '.join(str(entry['explain']).split())}" if entry.get("explain") else ""
    if entry["kind"] == "growth":
        return (f"Measured by the kernel: {mib(extra['small'])} beyond the inputs at the small size, "
                f"{mib(extra['large'])} at the large one.{note}")
    inputs = extra["peak_bytes"] - extra["extra"]
    beyond = f", {mib(extra['extra'])} beyond its inputs ({mib(inputs)})" if inputs > 0 else ""
    base = f", {mib(extra['baseline'])} of it the checker's own copies" if extra.get("baseline") else ""
    unit = float(entry["unit_bytes"])
    measure = f": {figure:.2f} x {mib(unit)}" if unit != 2**20 else ""
    return (f"Measured by the kernel: a peak of {mib(extra['peak_bytes'])} above the process's start{beyond}{base}"
            f"{measure}.{note}")


# --- the terminal and the review page ---------------------------------------------------------------

def header(question, number, total):
    import click

    return click.style(f"Question {number} of {total}", bold=True) + f"  ({question.kind}, your file)"


def question_text(question, number, total):
    from checker.present import layout

    asked = question.asked
    lines = [header(question, number, total), *asked.prompt.split("\n")]
    lines += [f"  {chr(ord('a') + i)}) {choice}" for i, choice in enumerate(asked.choices)]
    return "\n".join(layout.fit(lines))


def unreadable(asked, reply, hedged=False):
    from checker.present import render

    return render.unreadable_text(asked, reply, hedged=hedged)


def verdict(asked):
    from checker.present import render

    return render.verdict_text(asked)


def intro_text(defence):
    from checker.present import layout

    return "\n".join(layout.fit([f"Defend {defence.kata}: {len(defence.questions)} questions about your own file, "
                                 f"{visible(defence.file)}, each answered by running it in the sandbox."]))


def score_text(right, asked, replay, answered=None):
    from checker.present import render

    return render.score_text(right, asked, replay, answered=answered)


def interviewer_line(question):
    """One line for an interviewer, about the candidate's own line, with the computed answer: "If line 14 were
    removed, softmax([1000, 0]) would be [nan, 0]: ask why"."""
    call, answer = question.call, question.answer
    shown = values_text(answer) if isinstance(answer, list) else str(answer)
    if question.kind == "what-if":
        edit = question.edit
        row = re.search(r"\(row [\d, ]+ of the result\)", question.asked.prompt)
        where = f" {row.group(0)}" if row and not shown.startswith(("an error", "it never", "the process")) else ""
        return f"{_capital(visible(edit.description))}, {call.say} would be {shown}{where}: ask why."
    line = question.asked.prompt.split("\n")[0].replace(" of your file", "")
    name = re.search(r"`(\w+)` (?:have|hold)", question.asked.prompt)
    return (f"{line}: for {call.say}, `{name.group(1) if name else 'it'}` "
            f"{'has shape' if isinstance(answer, list) and question.tolerance is None else 'is'} {shown}: ask why.")

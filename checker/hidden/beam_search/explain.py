"""Kata 12's diagnosis: read a learner's answers, name the one bug whose variant reproduces every answer of a
test, and show the two hypotheses in question (theirs and the right one) with their lengths, sums and scores,
and where the right search leaves the learner's."""

import math

import numpy as np

from checker.hidden.beam_search.models import agree
from checker.hidden.beam_search.variants import encoded, search
from checker.engine.testkit import Failure, Suspects, call_text, show


def tokens_of(got, call):
    """The learner's tokens as a list of ints, or a Failure saying what came back instead."""
    items = got.tolist() if isinstance(got, np.ndarray) and got.ndim == 1 else got
    if not isinstance(items, (list, tuple)):
        raise Failure(f"{call} returned {show(got)} for the tokens, expected a list of ints")
    tokens = []
    for item in items:
        value = item.item() if isinstance(item, np.ndarray) and item.shape == () else item
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or \
                not float(value).is_integer():
            raise Failure(f"{call} returned {show(got)} for the tokens, expected a list of ints (token ids)")
        tokens.append(int(value))
    return tokens


def pair_of(got, call):
    """(tokens, score) of a beam_search answer, or a Failure."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Failure(f"{call} returned {show(got)}, expected the pair (tokens, score)")
    tokens, score = got
    value = score.item() if isinstance(score, np.ndarray) and score.shape == () else score
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise Failure(f"{call} returned {show(score)} for the score, expected a float")
    return tokens_of(tokens, call), float(value)


def path_sum(case, tokens):
    """The model's sum of log-probabilities over `tokens` after the prompt, or None for tokens outside it."""
    table, last, total = np.asarray(case["logprobs"], np.float64), case["prompt"][-1], 0.0
    for token in tokens:
        if not 0 <= token < table.shape[1]:
            return None
        total, last = total + float(table[last, token]), token
    return total


def _number(value):
    return f"{value:.4f}" if math.isfinite(value) else str(value)


def hypothesis_line(label, case, tokens, score=None):
    """`yours     [4, 2]   2 new tokens  sum -1.6246  score -0.8123`: one hypothesis as the model scores it."""
    total = path_sum(case, tokens)
    parts = [f"{label:<9} {str(tokens):<16} {len(tokens)} new token{'s' * (len(tokens) != 1)}"]
    if total is not None:
        penalty = case.get("length_penalty", 1.0)
        parts.append(f"sum {_number(total)}")
        if tokens:
            parts.append(f"score {_number(total / len(tokens) ** penalty)} = sum / {len(tokens)} ** {penalty:g}")
    if score is not None and total is not None and tokens and \
            not agree(encoded([], score), encoded([], total / len(tokens) ** case.get("length_penalty", 1.0))):
        parts.append(f"(you reported {_number(score)})")
    return "  ".join(parts)


def fate(case, tokens):
    """Where the right search leaves the learner's hypothesis, in words, or ''."""
    eos, width = case["eos"], case["beam_width"]
    if eos in tokens[:-1]:
        return f"yours goes on after eos ({eos}) at position {tokens.index(eos) + 1}: a hypothesis ends at its eos"
    if len(tokens) > case["max_new"]:
        return f"yours has {len(tokens)} new tokens, more than max_new = {case['max_new']}"
    steps = []
    search(**{k: case[k] for k in ("logprobs", "prompt", "beam_width", "max_new", "eos", "length_penalty")},
           steps=steps)
    for number, step in enumerate(steps, start=1):
        prefix = tokens[:number]
        rank = next((i for i, (t, _) in enumerate(step.ranked) if t == prefix), None)
        if rank is None:
            return ""
        what = step.fates[rank]
        total = _number(step.ranked[rank][1])
        where = f"at step {number} {prefix} ranks {rank + 1} of {len(step.ranked)} (sum {total})"
        if what == "dropped":
            return f"{where}: an eos candidate outside the first beam_width = {width} ranks is dropped"
        if what == "unused":
            return f"{where}, after the beam_width = {width} beams kept: the right search lets it go"
        if number == len(tokens):
            if what == "finished" or number == len(steps):
                return f"{where}: the right search finishes yours too, but the expected one scores higher " \
                       "(or, on a tie, was finished first)"
            return f"{where}: the right search keeps it live and extends it, so it is not a finished hypothesis"
    why = "beam_width hypotheses are finished" if len(steps) < case["max_new"] else "max_new tokens"
    return f"the right search stops after step {len(steps)} ({why}), before yours is complete"


def journey(case, tokens):
    """How the right search reaches `tokens` (the expected hypothesis), step by step in words: where it was kept
    live and where it finished, each with its rank, so a learner sees which candidate their search let go."""
    steps = []
    search(**{k: case[k] for k in ("logprobs", "prompt", "beam_width", "max_new", "eos", "length_penalty")},
           steps=steps)
    said = []
    for number, step in enumerate(steps[:len(tokens)], start=1):
        prefix = tokens[:number]
        rank = next((i for i, (t, _) in enumerate(step.ranked) if t == prefix), None)
        if rank is None:
            return ""
        what = {"live": "kept live", "finished": "finished"}.get(step.fates[rank], step.fates[rank])
        said.append(f"{prefix} {what} at step {number} (rank {rank + 1} of {len(step.ranked)})")
    if not said:
        return ""
    shown = said if len(said) <= 3 else ["..."] + said[-2:]
    return "the expected one: " + ", ".join(shown) + "; yours never returned it"


class Evidence:
    """A test's calls and the learner's answers: the bug named is the one whose variant reproduces every
    answer (and is wrong on one), when no variant of another bug does, nor any rival (a bug outside the
    catalogue that would explain them as well)."""

    def __init__(self, variants, rivals=(), telling=2):
        """`telling`: how many wrong answers a variant must reproduce to be named (1 where a test has one call)."""
        self.variants, self.rivals, self.calls, self.telling = variants, list(rivals), [], telling

    def add(self, case, got, right):
        self.calls.append((case, got, right))

    def named(self):
        calls = sorted(self.calls, key=lambda call: agree(call[1], call[2]))  # wrong answers first: they prune most
        if not calls or agree(calls[0][1], calls[0][2]):
            return None
        suspects = self.variants + self.rivals
        wrong_on = {}  # run -> the calls on which it is wrong (and agrees with the learner), as DIMENSION sees them
        for case, got, right in calls:
            kept = []
            for run in suspects:
                output = _output(run, case)
                if output is not None and agree(got, output):
                    kept.append(run)
                    if not agree(output, right if not np.isnan(output[-1]) else right_tokens(right)):
                        # a variant without a score is wrong only where its tokens are; calls count as distinct
                        # in the bug's own dimension (the prompt's length, for a penalty counting the prompt)
                        wrong_on.setdefault(run, set()).add(DIMENSION.get(getattr(run, "variant_of", None),
                                                                          _call_key)(case))
            suspects = kept
            if not suspects:
                return None
        # a name needs two wrong answers the variant reproduces: one can agree by chance with a mistake
        # outside the catalogue (a length + 1 in the penalty is the prompt's length for a one-token prompt)
        found = {getattr(run, "variant_of", None): " ".join((run.__doc__ or "").split())
                 for run in reversed(suspects) if len(wrong_on.get(run, ())) >= min(2, self.telling)}
        return next(iter(found.items())) if len(found) == 1 and None not in found else None


def _call_key(case):
    return id(case)


DIMENSION = {"beam-penalty-counts-prompt": lambda case: len(case["prompt"])}


def right_tokens(right):
    """The right answer with its score left out (NaN): what a variant that reports no score is measured by."""
    tokens = right.copy()
    tokens[-1] = np.nan
    return tokens


def _output(run, case):
    """What `run` answers on `case` (kept by Suspects for the next file), or None if it cannot follow it."""
    return next((output for _, output in Suspects([run], **case).outputs()), None)


def beam_failure(case, tokens, score, right_tokens, right_score, named, why=""):
    """The Failure of one wrong beam_search answer: the call, both hypotheses, the right search's view of the
    learner's, and the bug named, if any."""
    call = call_text("beam_search", **case)
    lines = [f"{call} returned ({tokens}, {_number(score)}), expected ({right_tokens}, {_number(right_score)})",
             hypothesis_line("yours", case, tokens, score), hypothesis_line("expected", case, right_tokens)]
    if tokens != right_tokens:
        lines.append(fate(case, tokens))
        if lines[-1].endswith("was finished first)"):  # the right search finished both: show how it reached its own
            lines.append(journey(case, right_tokens))
    elif not agree(encoded([], score), encoded([], right_score)):
        lines.append(f"the right tokens, a wrong score: score = sum / (new tokens, eos included) ** "
                     f"length_penalty = {_number(right_score)}")
    text = "\n      ".join(line for line in lines if line)
    if named:
        return Failure(f"{text}\n    {named[1]}", named[0], exact=True)
    return Failure(text + (f"\n    {why}" if why else ""))


def greedy_failure(case, tokens, right, named, why=""):
    """The Failure of one wrong greedy_decode answer, with the first step where the two part."""
    call = call_text("greedy_decode", **case)
    text = f"{call} returned {tokens}, expected {right}"
    table, last = np.asarray(case["logprobs"], np.float64), case["prompt"][-1]
    for step, (mine, want) in enumerate(zip(tokens, right), start=1):
        if mine != want:
            value = f"{table[last, mine]:.4f}" if 0 <= mine < table.shape[1] else "none: not a token"
            text += f": at step {step}, after token {last}, yours is {mine} (log-prob {value}); the argmax of " \
                    f"row {last} is {want} ({table[last, want]:.4f})"
            break
        last = mine
    else:
        if len(tokens) > len(right) and right and right[-1] == case["eos"]:
            text += f": yours goes on after eos ({case['eos']}) at step {len(right)}"
        elif len(tokens) < len(right):
            text += f": yours stops after {len(tokens)} tokens"
    if named:
        return Failure(f"{text}\n    {named[1]}", named[0], exact=True)
    return Failure(text + (f"\n    {why}" if why else ""))

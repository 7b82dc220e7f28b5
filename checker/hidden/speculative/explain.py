"""Kata 14's diagnosis: read a learner's answers, name the one bug whose variant reproduces every answer of
a test, and show the branch the answer took (tokens kept, where the rejection came, what the last token was
drawn from) beside the right one; for a biased rule, the first token's distribution against p_target."""

import numpy as np

from checker.hidden.speculative import variants
from checker.hidden.speculative.cases import ARGS
from checker.engine.testkit import Failure, call_text, show


def tokens_of(got, case):
    """The learner's tokens as a list of ints, or a Failure saying what came back instead (the call it
    names is written only then: formatting every call would cost more than the checks)."""
    if type(got) is list and all(type(t) is int for t in got):
        return got
    call = case_call(case) if isinstance(case, dict) else case
    items = got.tolist() if isinstance(got, np.ndarray) and got.ndim == 1 else got
    if not isinstance(items, (list, tuple)):
        raise Failure(f"{call} returned {show(got)}, expected a list of ints (the new tokens)")
    tokens = []
    for item in items:
        value = item.item() if isinstance(item, np.ndarray) and item.shape == () else item
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or \
                not float(value).is_integer():
            raise Failure(f"{call} returned {show(got)}, expected a list of ints (token ids)")
        tokens.append(int(value))
    return tokens


def case_call(case):
    return call_text("speculative_step", **{name: _shown_arg(case[name]) for name in ARGS})


def _shown_arg(value):
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.size <= 6:
        return [_short(float(u)) for u in value]
    if isinstance(value, float):
        return _short(value)
    return value


def _short(u):
    """u to 4 significant digits, unless that rounds it to 1 (a uniform past every cumulative sum shows whole)."""
    short = float(f"{u:.4g}")
    return u if short == 1.0 and u != 1.0 else short


def _row(p):
    return "[" + ", ".join(f"{x:.4g}" for x in p) + "]" if len(p) <= 8 else f"a row of {len(p)}"


def right_branch(case):
    """The right step's branch in words: which tokens were kept, the rejection and its ratio, the draw."""
    pd, pt = np.asarray(case["p_draft"], np.float64), np.asarray(case["p_target"], np.float64)
    tokens, u = list(case["draft_tokens"]), np.asarray(case["u_accept"], np.float64)
    branch = {}
    out = variants.step(*[case[a] for a in ARGS], branch=branch)
    parts = []
    for i, x in enumerate(tokens[:len(branch["accepted"]) + 1]):
        ratio = pt[i, x] / pd[i, x]
        sign = "<" if i < len(branch["accepted"]) else ">="
        parts.append(f"token {x} at {i}: u_accept {u[i]:.4g} {sign} {pt[i, x]:.4g} / {pd[i, x]:.4g} = "
                     f"{ratio:.4g}: {'kept' if sign == '<' else 'rejected'}")
    at = branch["rejected_at"]
    if at is None:
        parts.append(f"{_all_kept(len(tokens))}: bonus {out[-1]} drawn with u_sample {_short(case['u_sample'])} "
                     f"from p_target[{len(tokens)}]")
        parts.append(f"  {_row(pt[len(tokens)])}")
    else:
        residual = variants.residual(pt[at], pd[at])
        parts.append(f"{out[-1]} drawn with u_sample {_short(case['u_sample'])} from the residual of row {at}")
        parts.append(f"  {_row(residual)}")
    return out, "\n                ".join(parts)


def your_branch(case, tokens):
    """What the learner's answer says happened, read from the tokens alone."""
    drafted = list(case["draft_tokens"])
    kept = 0
    while kept < min(len(tokens), len(drafted)) and tokens[kept] == drafted[kept]:
        kept += 1
    if not tokens:
        return "no token at all: a step always adds at least one"
    if len(tokens) > len(drafted) + 1:
        return f"{len(tokens)} tokens, more than gamma + 1 = {len(drafted) + 1}"
    if len(tokens) == len(drafted) + 1 and kept == len(drafted):
        return f"{_all_kept(len(drafted))}, bonus {tokens[-1]}"
    if len(tokens) == kept == len(drafted):
        after = "it" if len(drafted) == 1 else "them"
        return f"{_all_kept(len(drafted))} and no bonus after {after}, or a rejection at {kept - 1} whose draw " \
               f"gave {tokens[-1]} again"
    if kept == len(tokens):
        return f"the first {kept} kept, then nothing drawn after them"
    if kept < len(tokens) - 1:
        return f"the first {kept} kept, then {tokens[kept:]}: more than one token after the kept ones"
    first = "nothing kept" if kept == 0 else f"the first {kept} kept"
    return f"{first}, a rejection at {kept}, then {tokens[-1]}"


def _all_kept(count):
    """`all 3 kept`; `the 1 drafted kept` (never "all 1 kept")."""
    return "the 1 drafted kept" if count == 1 else f"all {count} kept"


def _tokens(count):
    return f"{count} token{'' if count == 1 else 's'}"


def step_failure(case, tokens, right, named, why=""):
    """The Failure of one wrong speculative_step answer: the call, both branches, the bug named, if any."""
    _, right_text = right_branch(case)
    tokens, right = list(tokens), list(right)
    at = next((k for k, (mine, want) in enumerate(zip(tokens, right)) if mine != want), None)
    where = f": new token {at} got {tokens[at]}, expected {right[at]}" if at is not None else \
        f": got {_tokens(len(tokens))}, expected {len(right)}"
    lines = [f"{case_call(case)} returned {tokens}, expected {right}{where}",
             f"yours:    {your_branch(case, tokens)}", f"expected: {right_text}"]
    text = "\n      ".join(lines)
    if named:
        return Failure(f"{text}\n    {named[1]}", named[0], exact=True)
    return Failure(text + (f"\n    {why}" if why else ""))


class Evidence:
    """A test's calls and the learner's answers: the bug named is the one whose variant reproduces every
    answer (and is wrong on one), when no variant of another bug does, nor any rival."""

    def __init__(self, runs=None, rivals=None):
        self.runs = variants.STEP_VARIANTS if runs is None else runs
        self.rivals = variants.STEP_RIVALS if rivals is None else rivals
        self.calls = []

    def add(self, case, got, right):
        self.calls.append((case, tuple(got), tuple(right)))

    def named(self):
        calls = sorted(self.calls, key=lambda call: call[1] == call[2])  # wrong answers first: they prune most
        if not calls or calls[0][1] == calls[0][2]:
            return None
        suspects, wrong_somewhere = list(self.runs) + list(self.rivals), set()
        for case, got, right in calls:
            kept = []
            for run in suspects:
                output = answer(run, case)
                if output == got:
                    kept.append(run)
                    if output != right:
                        wrong_somewhere.add(run)
            suspects = kept
            if not suspects:
                return None
        found = {getattr(run, "variant_of", None): " ".join((run.__doc__ or "").split())
                 for run in reversed(suspects) if run in wrong_somewhere}
        return next(iter(found.items())) if len(found) == 1 and None not in found else None


_ANSWERS = {}  # (run, case key) -> answer: every file of a kata meets the same seeded cases


def case_key(case):
    parts = []
    for name in ARGS:
        value = case[name]
        if isinstance(value, np.ndarray):
            parts.append((value.dtype.str, value.shape, value.tobytes()))
        else:
            parts.append(repr(value))
    return tuple(parts)


def answer(run, case):
    key = (run, case_key(case))
    if key not in _ANSWERS:
        if len(_ANSWERS) > 200_000:
            _ANSWERS.clear()
        try:
            with np.errstate(all="ignore"):
                _ANSWERS[key] = tuple(run(*[case[a] for a in ARGS]))
        except Exception:  # noqa: BLE001 - this variant cannot follow this case: it is not the match
            _ANSWERS[key] = None
    return _ANSWERS[key]


def right_answer(case):
    """The right step's tokens (a tuple), kept like a variant's: every file meets the same cases."""
    return answer(variants.CLEAN_STEP, case)


def distribution_table(p_target, got, title="first new token"):
    """The learner's distribution of one new token beside p_target's, one line a token, wrong ones starred."""
    lines = [f"{title}: token  p_target  yours"]
    for token, (want, mine) in enumerate(zip(p_target, got)):
        mark = "  *" if abs(want - mine) > 1e-9 else ""
        lines.append(f"{'':>{len(title) + 2}}{token:>5}  {want:8.4f}  {mine:5.4f}{mark}")
    return "\n      ".join(lines)

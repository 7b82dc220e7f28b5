"""What code carrying each catalogued bug of kata 12 computes, to recognise it by its output.

One clean search, written apart from the reference, with a switch for each step a mistake changes: how
a step's log-probabilities combine, which candidates a step keeps, how many beams it starts from, what
happens to a hypothesis that emits eos, what length the penalty divides by. Each variant is that search
with one switch turned. A variant's output is encoded as floats, `[token, ..., score]`, so `testkit.Suspects` keeps it; a score of NaN means there is none to compare (greedy's), or the bug
leaves the reported score undefined: only the tokens are compared.
"""

import math
from dataclasses import dataclass, replace

import numpy as np

from checker.engine.testkit import variant


@dataclass(frozen=True)
class Rules:
    combine: str = "log"  # "log": sums of log-probabilities; "probabilities": sums of exp; "product": products
    keep: str = "all"  # "all": rank every candidate together; per beam: "first-beams" (each beam's best beam_width,
    # beam by beam), "best-each" (each beam's best one), "share" (each beam walks its own ranking for
    # beam_width // beams), "pool-each" (each beam's best beam_width, ranked together)
    copies: bool = False  # start from beam_width copies of the prompt
    on_eos: str = "finish"  # "finish"; "extend": eos is a token like any other; "both": finished AND extended;
    # "drop": eos candidates thrown away
    rank_length: str = "new"  # the length finished hypotheses are ranked with: "new", "none" (no penalty), "prompt",
    # or, outside the catalogue, "probability" (exp(sum) / new ** length_penalty), "log-probability" (its log,
    # sum - length_penalty * log(new)), "no-eos" (eos not counted), "times" (sum * new ** length_penalty),
    # "unit" (length_penalty read as 1: sum / new), "plus-one" (sum / (new + 1) ** length_penalty)
    report_length: str = "new"  # the length of the reported score: "new", "none", "prompt"
    # bugs outside the catalogue, for finding inputs that show them (never to name them):
    eos_ranks: str = "first"  # "first": eos finished within the first beam_width ranks; "walked": at any rank walked
    # before the beams are full; "any": at any rank of the ranking (a per-beam search's lists)
    live_from: str = "all"  # "all": live beams from the whole ranking; "first-ranks": only the first beam_width
    at_count_stop: str = "finish"  # "finish" the live beams left; "drop" them (Hugging Face's early_stopping=True)
    stop_count: str = "width"  # the search stops once beam_width hypotheses are finished, or "one"
    steps_short: int = 0  # steps left out of max_new
    ties: str = "beam"  # equal sums: "beam" (the better beam, then the lower token), "token" (token first),
    # "reversed" (the worse beam, the higher token: an ascending sort read from its end)
    best: str = "first"  # equal final scores: "first" finished wins, or "last"
    extra_live: int = 0  # live beams kept beyond beam_width (an off-by-one in the walk)


CLEAN = Rules()


@dataclass
class Step:
    """One step of a search, for explanations and margins: the candidates in ranking order, how many of them
    the walk looked at, and what became of each (`finished`, `live`, `dropped` or `unused`)."""

    ranked: list  # (tokens, sum)
    fates: list


def _combine(total, logprob, how):
    if how == "log":
        return total + logprob
    if how == "probabilities":
        return total + math.exp(logprob)
    return total * logprob


_TIE_KEYS = {"beam": lambda total, beam, token: (-total, beam, token),  # -(-inf) is inf: exact on -inf
             "token": lambda total, beam, token: (-total, token, beam),
             "reversed": lambda total, beam, token: (-total, -beam, -token)}


def _ranking(candidates, keep, beam_width, beams):
    """The candidates (key, beam, token, sum) as groups, each walked on its own: (candidates in the order the
    walk takes them, the ranks within which an eos finishes and the most live beams the group gives)."""
    candidates.sort()
    if keep == "all":
        return [(candidates, beam_width)]
    own = [[c for c in candidates if c[1] == beam] for beam in range(beams)]  # each beam's, best first
    if keep == "share":
        return [(mine, max(1, beam_width // beams)) for mine in own]
    if keep == "pool-each":
        return [(sorted(c for mine in own for c in mine[:beam_width]), beam_width)]
    width = 1 if keep == "best-each" and beams > 1 else beam_width
    return [([c for mine in own for c in mine[:width]], beam_width)]


def search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0, rules=CLEAN, steps=None):
    """(tokens, score, finished) of a beam search under `rules`; `steps`, a list, receives each Step."""
    table = np.asarray(logprobs, np.float64).tolist()
    key = _TIE_KEYS[rules.ties]
    live = [([], 1.0 if rules.combine == "product" else 0.0)] * (beam_width if rules.copies else 1)
    finished = []
    for _ in range(max_new - rules.steps_short):
        candidates = []
        for beam, (tokens, total) in enumerate(live):
            for token, value in enumerate(table[tokens[-1] if tokens else prompt[-1]]):
                grown = _combine(total, value, rules.combine)
                candidates.append((key(grown, beam, token), beam, token, grown))
        groups = _ranking(candidates, rules.keep, beam_width, len(live))
        old, live, fates = live, [], []
        for group, width in groups:
            kept = 0
            for rank, (_, beam, token, total) in enumerate(group):
                full = kept == width + rules.extra_live or len(live) == beam_width + rules.extra_live
                if rank >= width and (full or rules.live_from == "first-ranks") and \
                        not (token == eos and rules.eos_ranks == "any"):
                    if steps is None and rules.eos_ranks != "any":
                        break
                    fates.append("unused")
                elif token == eos and rules.on_eos != "extend":
                    ranked_in = rank < width or rules.eos_ranks in ("walked", "any")
                    fates.append("finished" if ranked_in and rules.on_eos != "drop" else "dropped")
                    if fates[-1] == "finished":
                        finished.append((old[beam][0] + [token], total))
                    if rules.on_eos == "both" and not full:
                        live.append((old[beam][0] + [token], total))
                        kept += 1
                elif not full:
                    fates.append("live")
                    live.append((old[beam][0] + [token], total))
                    kept += 1
                else:
                    fates.append("unused")
        if steps is not None:
            steps.append(Step([(old[c[1]][0] + [c[2]], c[3]) for group, _ in groups for c in group], fates))
        enough = len(finished) >= (beam_width if rules.stop_count == "width" else 1)
        if enough or not live:
            if rules.at_count_stop == "drop" and enough:
                live = []
            break
    finished += live
    ranks = [_score(total, tokens, prompt, length_penalty, rules.rank_length, eos) for tokens, total in finished]
    best = max(range(len(finished)), key=ranks.__getitem__)  # the first of equal scores
    if rules.best == "last":
        best = max(i for i, value in enumerate(ranks) if value == ranks[best])
    tokens, total = finished[best]
    return tokens, _score(total, tokens, prompt, length_penalty, rules.report_length, eos), finished


def _score(total, tokens, prompt, length_penalty, length, eos=None):
    if length == "none":
        return total
    if length == "probability":
        return math.exp(total) / len(tokens) ** length_penalty
    if length == "log-probability":
        return total - length_penalty * math.log(len(tokens))
    if length == "times":
        return total * len(tokens) ** length_penalty
    if length == "plus-one":
        return total / (len(tokens) + 1) ** length_penalty
    if length == "unit":
        return total / len(tokens)
    if length == "no-eos":
        return total / max(1, len(tokens) - (tokens[-1] == eos)) ** length_penalty
    n = len(tokens) + (len(prompt) if length == "prompt" else 0)
    return total / n ** length_penalty


def encoded(tokens, score=math.nan):
    """An output as one float array, `[token, ..., score]` (greedy's score NaN): what Suspects keeps."""
    return np.array([*tokens, score], np.float64)


def _beam(rules, score_known=True):
    def run(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
        tokens, score, _ = search(logprobs, prompt, beam_width, max_new, eos, length_penalty, rules)
        return encoded(tokens, score if score_known else math.nan)

    return run


def _beam_variant(bug_id, doc, score_known=True, **switches):
    run = variant(bug_id, of="beam_search")(_beam(replace(CLEAN, **switches), score_known))
    run.__doc__ = doc
    return run


clean_beam = _beam(CLEAN)  # the right answer, encoded as the variants are

RIVAL_RULES = {  # bugs outside the catalogue that SPEC's precise rules rule out: rival explanations, never named
    "eos-at-any-rank": {"eos_ranks": "walked"},
    "eos-at-every-rank": {"eos_ranks": "any"},
    "eos-takes-a-slot": {"live_from": "first-ranks"},
    "drops-live-at-stop": {"at_count_stop": "drop"},
    "ties-by-token": {"ties": "token"},
    "ties-reversed": {"ties": "reversed"},
    "last-of-equal-scores": {"best": "last"},
    "penalty-on-probability": {"rank_length": "probability"},
    "penalty-on-log-probability": {"rank_length": "log-probability", "report_length": "log-probability"},
    "eos-not-counted": {"rank_length": "no-eos", "report_length": "no-eos"},
    "penalty-multiplied": {"rank_length": "times", "report_length": "times"},
    "penalty-ignored": {"rank_length": "unit", "report_length": "unit"},
    "stops-at-first-eos": {"stop_count": "one"},
    "one-step-short": {"steps_short": 1},
    "one-beam-too-many": {"extra_live": 1},
    "penalty-plus-one": {"rank_length": "plus-one", "report_length": "plus-one"},
}


def _rival(name, switches):
    run = _beam(replace(CLEAN, **switches))
    run.rival_of, run.__name__ = name, f"rival_{name}"
    return run


RIVALS = [_rival(name, switches) for name, switches in RIVAL_RULES.items()]

BEAM_VARIANTS = [
    _beam_variant("beam-sums-probabilities", "the step's probabilities were added (exp of the log-probabilities): "
                  "a hypothesis's probability is a PRODUCT of probabilities, so add log-probabilities",
                  score_known=False, combine="probabilities"),
    _beam_variant("beam-sums-probabilities", "the log-probabilities were multiplied: add them (the log of a "
                  "product of probabilities is the sum of their logs)", score_known=False, combine="product"),
    _beam_variant("beam-per-beam-topk", "each beam's candidates were taken beam by beam (beam 0's best first) "
                  "instead of ranking every beam's candidates together: sort all beam_width x V sums at once",
                  keep="first-beams"),
    _beam_variant("beam-per-beam-topk", "each beam's candidates were taken beam by beam (beam 0's best first, every "
                  "eos among them finished) instead of ranking every beam's candidates together: sort all "
                  "beam_width x V sums at once", keep="first-beams", eos_ranks="any"),
    _beam_variant("beam-per-beam-topk", "each beam kept only its own best extension: rank every beam's "
                  "candidates together and keep the beam_width best of them all", keep="best-each"),
    _beam_variant("beam-per-beam-topk", "each beam walked its own candidates and kept its share (beam_width // "
                  "live beams) of its own best: rank every beam's candidates together and keep the beam_width "
                  "best of them all", keep="share"),
    _beam_variant("beam-per-beam-topk", "each beam's candidates were cut to its own best beam_width before "
                  "all were ranked together, so a beam whose own eos ranks high gives too few live beams: rank "
                  "every candidate of every beam together", keep="pool-each"),
    _beam_variant("beam-initial-copies", "the search started from beam_width copies of the prompt, so the same "
                  "hypothesis filled every beam: start from ONE live beam", copies=True),
    _beam_variant("beam-extends-finished", "a hypothesis that emitted eos kept growing (eos treated as a token "
                  "like any other): set it aside as finished", on_eos="extend"),
    _beam_variant("beam-extends-finished", "a hypothesis that emitted eos was finished AND kept growing as a "
                  "live beam: once finished it leaves the beam", on_eos="both"),
    _beam_variant("beam-drops-finished", "hypotheses that emitted eos were thrown away, so the answer is always "
                  "a max-length beam: keep each one finished within the first beam_width ranks", on_eos="drop"),
    _beam_variant("beam-no-length-penalty", "the finished hypotheses were compared by their plain sums: divide "
                  "each by (new tokens) ** length_penalty", rank_length="none", report_length="none"),
    _beam_variant("beam-no-length-penalty", "the reported score is the plain sum: divide it by "
                  "(new tokens) ** length_penalty", report_length="none"),
    _beam_variant("beam-no-length-penalty", "the finished hypotheses were ranked by their plain sums (the "
                  "reported score is divided): rank them by sum / (new tokens) ** length_penalty",
                  rank_length="none"),
    _beam_variant("beam-penalty-counts-prompt", "the length in the penalty counted the prompt too: divide by "
                  "(NEW tokens, eos included) ** length_penalty", rank_length="prompt", report_length="prompt"),
]


# --- greedy_decode ---------------------------------------------------------------------------------

def greedy(logprobs, prompt, max_new, eos, stop=True, axis=1, highest=False):
    """Greedy decoding; `stop=False` goes past eos, `axis=0` reads a column (the previous token given the next),
    `highest` takes the highest id of equal maxima."""
    table = np.asarray(logprobs, np.float64)
    last, new = prompt[-1], []
    while len(new) < max_new:
        row = table[last] if axis == 1 else table[:, last]
        last = len(row) - 1 - int(np.argmax(row[::-1])) if highest else int(np.argmax(row))
        new.append(last)
        if stop and last == eos:
            break
    return new


@variant("greedy-ignores-eos", of="greedy_decode")
def _greedy_past_eos(logprobs, prompt, max_new, eos):
    """greedy decoding went on past eos: stop as soon as eos is emitted (and return it)"""
    return encoded(greedy(logprobs, prompt, max_new, eos, stop=False))


@variant("greedy-wrong-axis", of="greedy_decode")
def _greedy_column(logprobs, prompt, max_new, eos):
    """the argmax was taken over a COLUMN of logprobs (axis 0): row a, logprobs[a], holds the next token's
    log-probabilities after token a"""
    return encoded(greedy(logprobs, prompt, max_new, eos, axis=0))


GREEDY_VARIANTS = [_greedy_past_eos, _greedy_column]


def _greedy_highest(logprobs, prompt, max_new, eos):
    return encoded(greedy(logprobs, prompt, max_new, eos, highest=True))


_greedy_highest.rival_of = "greedy-ties-to-highest"
GREEDY_RIVALS = [_greedy_highest]  # outside the catalogue, as RIVALS: never named

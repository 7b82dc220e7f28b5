"""Bug mutates-input: greedy appends its tokens to the caller's prompt."""

import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    model = np.asarray(logprobs)
    generated = []
    start = len(prompt)
    for step in range(max_new):
        nxt = int(model[prompt[-1]].argmax())
        prompt.append(nxt)
        generated = prompt[start:]
        if nxt == eos:
            return generated
    return generated


def _score(hyp, alpha):
    return hyp["logp"] / (len(hyp["new"]) ** alpha)


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    model = np.asarray(logprobs, dtype=np.float64)
    V = model.shape[-1]
    alive = [{"new": [], "logp": 0.0}]
    complete = []
    step = 0
    while step < max_new and alive and len(complete) < beam_width:
        step += 1
        expansions = []
        for hyp in alive:  # beam-major, token order: what the stable sort keeps among equal sums
            prev = hyp["new"][-1] if hyp["new"] else prompt[-1]
            for tok in range(V):
                expansions.append({"new": hyp["new"] + [tok], "logp": hyp["logp"] + float(model[prev, tok])})
        expansions = sorted(expansions, key=lambda h: h["logp"], reverse=True)
        alive = []
        for position, hyp in enumerate(expansions):
            if hyp["new"][-1] == eos:
                if position < beam_width:
                    complete.append(hyp)
                continue
            alive.append(hyp)
            if len(alive) == beam_width:
                break
        # eos candidates ranked before the cut but after the last live beam were seen above; later ones are beyond it
        for hyp in expansions[position + 1:beam_width]:
            if hyp["new"][-1] == eos:
                complete.append(hyp)
    candidates = complete + alive
    top = max(candidates, key=lambda h: _score(h, length_penalty))  # the first of equal scores
    return [int(t) for t in top["new"]], float(_score(top, length_penalty))

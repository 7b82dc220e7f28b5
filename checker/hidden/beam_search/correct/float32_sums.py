"""A correct kata 12 that keeps every sum in float32 and ranks with a stable argsort of the flattened table."""

import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    table = np.asarray(logprobs, dtype=np.float32)
    out = []
    while len(out) < max_new:
        out.append(int(np.argmax(table[out[-1] if out else prompt[-1]])))
        if out[-1] == eos:
            break
    return out


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    table = np.asarray(logprobs, dtype=np.float32)
    v = table.shape[1]
    hyps = [[]]
    sums = np.zeros(1, dtype=np.float32)
    finished = []  # (tokens, sum)
    for _ in range(max_new):
        last = np.array([h[-1] if h else prompt[-1] for h in hyps])
        cand = (sums[:, None] + table[last]).astype(np.float32)  # (beams, V)
        ranking = np.argsort(-cand.ravel(), kind="mergesort")
        is_eos = ranking % v == eos
        for r in np.flatnonzero(is_eos[:beam_width]):
            b, t = divmod(int(ranking[r]), v)
            finished.append((hyps[b] + [t], float(cand[b, t])))
        chosen = ranking[~is_eos][:beam_width]
        hyps = [hyps[i // v] + [int(i % v)] for i in chosen]
        sums = cand.ravel()[chosen]
        if len(finished) >= beam_width or not hyps:
            break
    finished += [(h, float(s)) for h, s in zip(hyps, sums)]
    scores = [s / np.float32(len(h)) ** np.float32(length_penalty) for h, s in finished]
    i = scores.index(max(scores))
    return finished[i][0], float(scores[i])

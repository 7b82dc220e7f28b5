"""uncatalogued: keeps beam_width + 1 live beams"""

import heapq
import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    table = np.asarray(logprobs, dtype=float)
    out, last = [], prompt[-1]
    for _ in range(max_new):
        row = table[last]
        last = min(range(len(row)), key=lambda t: (-row[t], t))
        out.append(int(last))
        if last == eos:
            break
    return out


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    table = np.asarray(logprobs, dtype=float)
    V = table.shape[1]
    live = [((), 0.0)]
    done = []
    for step in range(max_new):
        cands = []
        for b, (toks, s) in enumerate(live):
            last = toks[-1] if toks else prompt[-1]
            for t in range(V):
                cands.append((-(s + table[last, t]), b, t, toks + (t,), s + table[last, t]))
        ranked = sorted(cands, key=lambda c: (c[0], c[1], c[2]))
        new = []
        for rank, (_, b, t, toks, s) in enumerate(ranked):
            if t == eos:
                if rank < beam_width:
                    done.append((toks, s))
                continue
            if len(new) < beam_width + 1:
                new.append((toks, s))
            if len(new) == beam_width + 1 and rank >= beam_width - 1:
                break
        live = new
        if len(done) >= beam_width or not live:
            break
    allh = done + live
    scores = [s / len(toks) ** length_penalty for toks, s in allh]
    best = max(range(len(allh)), key=lambda i: (scores[i], -i))
    return [int(t) for t in allh[best][0]], float(scores[best])

"""Kata 12 with a bug outside the catalogue: equal final scores go to the hypothesis finished last."""

import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    table = np.asarray(logprobs)
    last = prompt[-1]
    out = []
    for _ in range(max_new):
        last = int(np.argmax(table[last]))
        out.append(last)
        if last == eos:
            break
    return out


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    table = np.asarray(logprobs, dtype=np.float64)
    vocab = table.shape[1]
    beams = [([], 0.0)]
    done = []
    for _ in range(max_new):
        cands = []
        for b, (toks, total) in enumerate(beams):
            last = toks[-1] if toks else prompt[-1]
            for t in range(vocab):
                cands.append((total + table[last, t], b, t))
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        new_beams = []
        for rank, (total, b, t) in enumerate(cands):
            if rank >= beam_width and len(new_beams) == beam_width:
                break
            toks = beams[b][0] + [t]
            if t == eos:
                if rank < beam_width:
                    done.append((toks, total))
            elif len(new_beams) < beam_width:
                new_beams.append((toks, total))
        beams = new_beams
        if len(done) >= beam_width or not beams:
            break
    done += beams

    def score(h):
        return h[1] / len(h[0]) ** length_penalty

    best = done[0]
    for h in done[1:]:
        if score(h) >= score(best):
            best = h
    return best[0], float(score(best))

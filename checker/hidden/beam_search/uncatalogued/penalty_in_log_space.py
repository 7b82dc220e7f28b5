"""Kata 12 with a bug outside the catalogue: the length penalty divides the probability, so the score is the
log of exp(sum) / length ** length_penalty, sum - length_penalty * log(length), not sum / length ** ...."""

import math

import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    table = np.asarray(logprobs)
    out, last = [], prompt[-1]
    while len(out) < max_new:
        last = int(np.argmax(table[last]))
        out.append(last)
        if last == eos:
            break
    return out


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    table = np.asarray(logprobs, dtype=np.float64).tolist()
    beams = [([], 0.0)]
    ended = []
    for _ in range(max_new):
        ranked = sorted(((total + p, b, t) for b, (seq, total) in enumerate(beams)
                         for t, p in enumerate(table[seq[-1] if seq else prompt[-1]])),
                        key=lambda c: (-c[0], c[1], c[2]))
        live = []
        for rank, (total, b, t) in enumerate(ranked):
            if rank >= beam_width and len(live) == beam_width:
                break
            if t == eos:
                if rank < beam_width:
                    ended.append((beams[b][0] + [t], total))
            elif len(live) < beam_width:
                live.append((beams[b][0] + [t], total))
        beams = live
        if len(ended) >= beam_width or not beams:
            break

    def score(seq, total):
        return total - length_penalty * math.log(len(seq))  # log(exp(total) / len ** penalty)

    best = max(ended + beams, key=lambda h: score(*h))  # max keeps the first of equal scores
    return best[0], float(score(*best))

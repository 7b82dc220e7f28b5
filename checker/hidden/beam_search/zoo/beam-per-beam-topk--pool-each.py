"""Kata 12 carrying beam-per-beam-topk (each beam's candidates cut to its own best beam_width, then ranked
together)."""

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
    table = np.asarray(logprobs, dtype=np.float64)
    vocab = table.shape[1]
    beams = [([], 0.0)]
    finished = []
    for _ in range(max_new):
        pool = []
        for b, (seq, total) in enumerate(beams):
            sums = total + table[seq[-1] if seq else prompt[-1]]  # (V,)
            own = np.lexsort((np.arange(vocab), -sums))[:beam_width]  # this beam's best, lower token on ties
            pool += [(-sums[t], b, int(t)) for t in own]
        pool.sort()
        live = []
        for rank, (neg, b, t) in enumerate(pool):
            if len(live) == beam_width and rank >= beam_width:
                break
            if t == eos:
                if rank < beam_width:
                    finished.append((beams[b][0] + [t], -neg))
            elif len(live) < beam_width:
                live.append((beams[b][0] + [t], -neg))
        beams = live
        if len(finished) >= beam_width or not beams:
            break
    best, best_score = None, -np.inf
    for seq, total in finished + beams:
        score = total / len(seq) ** length_penalty
        if best is None or score > best_score:
            best, best_score = seq, score
    return best, float(best_score)

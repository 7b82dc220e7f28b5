"""Kata 12 with a bug outside the catalogue: every eos candidate of the whole ranking is finished, even those
ranked after the live beams are full."""

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
    beams = [((), 0.0)]
    ended = []
    for _ in range(max_new):
        sums = np.array([total + table[seq[-1] if seq else prompt[-1]] for seq, total in beams])  # (beams, V)
        order = np.lexsort((np.tile(np.arange(vocab), len(beams)), np.repeat(np.arange(len(beams)), vocab),
                            -sums.ravel()))
        live = []
        for flat in order:
            b, t = divmod(int(flat), vocab)
            if t == eos:
                ended.append((beams[b][0] + (t,), sums[b, t]))  # the bug: no check of its rank
            elif len(live) < beam_width:
                live.append((beams[b][0] + (t,), sums[b, t]))
        beams = live
        if len(ended) >= beam_width or not beams:
            break
    pool = ended + beams
    scores = [total / len(seq) ** length_penalty for seq, total in pool]
    best = int(np.argmax(scores))
    return list(pool[best][0]), float(scores[best])

"""A correct kata 12 that walks every candidate in a plain loop and keeps a short ranked list by insertion."""

import math


def greedy_decode(logprobs, prompt, max_new, eos):
    tokens = []
    previous = prompt[-1]
    for _ in range(max_new):
        row = logprobs[previous]
        best = 0
        for token in range(1, len(row)):
            if row[token] > row[best]:
                best = token
        tokens.append(best)
        if best == eos:
            break
        previous = best
    return tokens


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    vocab = len(logprobs[0])
    beams = [([], 0.0)]
    finished = []
    for _ in range(max_new):
        # the 2 * beam_width best candidates hold the first beam_width ranks and beam_width non-eos ones
        # (a step has at most one eos candidate per live beam)
        top = []  # (sum, beam, token), best first
        limit = 2 * beam_width
        for b, (seq, total) in enumerate(beams):
            row = logprobs[seq[-1] if seq else prompt[-1]]
            for t in range(vocab):
                value = total + float(row[t])
                place = len(top)
                while place > 0 and top[place - 1][0] < value:  # strictly: earlier equals stay ahead
                    place -= 1
                if place < limit:
                    top.insert(place, (value, b, t))
                    del top[limit:]
        survivors = []
        for rank, (value, b, t) in enumerate(top):
            if t == eos:
                if rank < beam_width:
                    finished.append((beams[b][0] + [t], value))
            elif len(survivors) < beam_width:
                survivors.append((beams[b][0] + [t], value))
        beams = survivors
        if len(finished) >= beam_width or not beams:
            break
    best_seq, best_score = None, -math.inf
    for seq, total in finished + beams:
        score = total / math.pow(len(seq), length_penalty)
        if best_seq is None or score > best_score:
            best_seq, best_score = seq, score
    return best_seq, best_score

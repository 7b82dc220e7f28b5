"""A correct kata 12 that pops each step's candidates from a heap keyed (-sum, beam, token)."""

import heapq

import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    rows = np.asarray(logprobs).tolist()
    out = []
    token = prompt[-1]
    while len(out) < max_new and (not out or out[-1] != eos):
        row = rows[token]
        token = max(range(len(row)), key=lambda t: (row[t], -t))  # the lowest id among equal maxima
        out.append(token)
    return out


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    rows = np.asarray(logprobs, dtype=float).tolist()
    beams = [(0.0, ())]
    ended = []
    for _ in range(max_new):
        heap = [(-(total + value), b, t) for b, (total, seq) in enumerate(beams)
                for t, value in enumerate(rows[seq[-1] if seq else prompt[-1]])]
        heapq.heapify(heap)
        kept, rank = [], 0
        while heap and len(kept) < beam_width:
            neg, b, t = heapq.heappop(heap)
            grown = (-neg, beams[b][1] + (t,))
            if t != eos:
                kept.append(grown)
            elif rank < beam_width:
                ended.append(grown)
            rank += 1
        while heap and rank < beam_width:  # eos candidates still within the first beam_width ranks
            neg, b, t = heapq.heappop(heap)
            if t == eos:
                ended.append((-neg, beams[b][1] + (t,)))
            rank += 1
        beams = kept
        if len(ended) >= beam_width or not beams:
            break
    pool = ended + beams
    best_score, best_seq = None, None
    for total, seq in pool:
        score = total / len(seq) ** length_penalty
        if best_score is None or score > best_score:
            best_score, best_seq = score, seq
    return [int(t) for t in best_seq], float(best_score)

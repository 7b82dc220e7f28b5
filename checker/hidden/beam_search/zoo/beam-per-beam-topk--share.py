"""Kata 12 carrying beam-per-beam-topk (each beam walks its own row for a share of the beams)."""

import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    table = np.asarray(logprobs)
    out = []
    for _ in range(max_new):
        out.append(int(np.argmax(table[out[-1] if out else prompt[-1]])))
        if out[-1] == eos:
            break
    return out


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    table = np.asarray(logprobs, dtype=np.float64)
    beams = [(0.0, [])]  # (sum, new tokens)
    done = []
    for _ in range(max_new):
        share = max(1, beam_width // len(beams))
        grown = []
        for total, seq in beams:
            row = table[seq[-1] if seq else prompt[-1]]
            taken = 0
            for place, token in enumerate(sorted(range(len(row)), key=lambda t: (-row[t], t))):
                token_sum = total + row[token]
                if token == eos:
                    if place < share:
                        done.append((token_sum, seq + [token]))
                elif taken < share and len(grown) < beam_width:
                    grown.append((token_sum, seq + [token]))
                    taken += 1
        beams = grown
        if len(done) >= beam_width or not beams:
            break
    pool = done + beams
    scores = [total / len(seq) ** length_penalty for total, seq in pool]
    best = int(np.argmax(scores))
    return [int(t) for t in pool[best][1]], float(scores[best])

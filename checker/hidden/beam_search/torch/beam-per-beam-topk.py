"""Kata 12 in PyTorch with torch.topk on each beam's row: the beams' best taken beam by beam, never ranked together."""
import torch


def greedy_decode(logprobs, prompt, max_new, eos):
    table = torch.as_tensor(logprobs)
    out, last = [], prompt[-1]
    while len(out) < max_new:
        last = int(torch.argmax(table[last]))
        out.append(last)
        if last == eos:
            break
    return out


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    table = torch.as_tensor(logprobs, dtype=torch.float64)
    beams = [([], 0.0)]
    done = []
    for _ in range(max_new):
        candidates = []
        for b, (seq, total) in enumerate(beams):
            row = total + table[seq[-1] if seq else prompt[-1]]
            best = torch.topk(row, min(beam_width, row.shape[0]))  # this beam's own best, highest first
            candidates += [(float(v), b, int(t)) for v, t in zip(best.values, best.indices)]
        new_beams = []
        for rank, (total, b, t) in enumerate(candidates):
            if rank >= beam_width and len(new_beams) == beam_width:
                break
            seq = beams[b][0] + [t]
            if t == eos:
                if rank < beam_width:
                    done.append((seq, total))
            elif len(new_beams) < beam_width:
                new_beams.append((seq, total))
        beams = new_beams
        if len(done) >= beam_width or not beams:
            break
    done += beams
    scores = [total / len(seq) ** length_penalty for seq, total in done]
    best = max(range(len(done)), key=scores.__getitem__)
    return done[best][0], scores[best]

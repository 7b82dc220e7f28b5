# hand copy of solutions/12_beam_search.py: renamed, restyled, reordered, loops, helper
import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    lp = np.asarray(logprobs)
    out = []
    tok = prompt[-1]
    for _ in range(max_new):
        tok = int(np.argmax(lp[tok]))
        out.append(tok)
        if tok == eos:
            break
    return out


def _final_score(seq, total, length_penalty):
    return total / len(seq) ** length_penalty


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    lp = np.asarray(logprobs, dtype=np.float64)
    done = []
    beams = [([], 0.0)]
    V = lp.shape[1]
    for step in range(max_new):
        prev = [seq[-1] if seq else prompt[-1] for seq, _ in beams]
        totals = np.array([s for _, s in beams])[:, None] + lp[prev]
        order = np.argsort(-totals, axis=None, kind="stable")
        new_beams = []
        for r, idx in enumerate(order):
            if r >= beam_width and len(new_beams) == beam_width:
                break
            b, tok = divmod(int(idx), V)
            cand = (beams[b][0] + [tok], float(totals[b, tok]))
            if tok == eos:
                if r < beam_width:
                    done.append(cand)
            elif len(new_beams) < beam_width:
                new_beams.append(cand)
        beams = new_beams
        if not beams or len(done) >= beam_width:
            break
    done = done + beams
    scores = [_final_score(seq, tot, length_penalty) for seq, tot in done]
    best = max(range(len(done)), key=scores.__getitem__)
    return done[best][0], scores[best]

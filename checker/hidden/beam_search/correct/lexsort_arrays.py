"""A correct kata 12 with preallocated arrays: tokens (beam_width, max_new), sums (beam_width,), and
np.lexsort on (token, beam, -sum) for each step's ranking."""

import numpy as np


def greedy_decode(logprobs, prompt, max_new, eos):
    lp = np.asarray(logprobs)
    tokens = np.empty(max_new, dtype=np.int64)
    n, cur = 0, prompt[-1]
    while n < max_new:
        cur = np.flatnonzero(lp[cur] == lp[cur].max())[0]
        tokens[n] = cur
        n += 1
        if cur == eos:
            break
    return tokens[:n].tolist()


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    lp = np.asarray(logprobs, dtype=np.float64)
    vocab = lp.shape[0]
    seqs = np.zeros((beam_width, max_new), dtype=np.int64)  # (beam_width, max_new)
    sums = np.zeros(beam_width)
    lasts = np.full(beam_width, prompt[-1])
    live, length = 1, 0
    done_seqs, done_sums = [], []
    while length < max_new:
        table = sums[:live, None] + lp[lasts[:live]]  # (live, V)
        beam_of = np.repeat(np.arange(live), vocab)  # (live * V,)
        token_of = np.tile(np.arange(vocab), live)  # (live * V,)
        flat = table.reshape(-1)  # (live * V,)
        order = np.lexsort((token_of, beam_of, -flat))  # last key first: -sum, then beam, then token
        new_seqs = np.zeros_like(seqs)
        new_sums, new_lasts = np.zeros_like(sums), np.zeros_like(lasts)
        kept = 0
        for rank, index in enumerate(order):
            if kept == beam_width and rank >= beam_width:
                break
            b, t = beam_of[index], token_of[index]
            if t == eos:
                if rank < beam_width:
                    done_seqs.append(np.append(seqs[b, :length], t))
                    done_sums.append(flat[index])
                continue
            if kept < beam_width:
                new_seqs[kept, :length] = seqs[b, :length]
                new_seqs[kept, length] = t
                new_sums[kept], new_lasts[kept] = flat[index], t
                kept += 1
        seqs, sums, lasts, live = new_seqs, new_sums, new_lasts, kept
        length += 1
        if len(done_seqs) >= beam_width or live == 0:
            break
    pool = done_seqs + [seqs[i, :length] for i in range(live)]
    totals = np.array(done_sums + list(sums[:live]))
    lengths = np.array([len(s) for s in pool], dtype=np.float64)
    scores = totals / lengths**length_penalty
    best = int(np.argmax(scores))  # argmax takes the first of equal scores
    return pool[best].tolist(), float(scores[best])

"""Bug mutates-input (PyTorch): greedy grows the caller's prompt with prompt.append."""
import torch


def greedy_decode(logprobs, prompt, max_new, eos):
    table = torch.as_tensor(logprobs)
    out, last, start = [], prompt[-1], len(prompt)
    while len(out) < max_new:
        last = int(torch.argmax(table[last]))  # the first of equal maxima
        prompt.append(last)
        out = prompt[start:]
        if last == eos:
            break
    return out


def beam_search(logprobs, prompt, beam_width, max_new, eos, length_penalty=1.0):
    table = torch.as_tensor(logprobs, dtype=torch.float64)
    vocab = table.shape[1]
    seqs, sums = [[]], torch.zeros(1, dtype=torch.float64)
    done = []  # (tokens, sum)
    for _ in range(max_new):
        lasts = torch.tensor([s[-1] if s else prompt[-1] for s in seqs])
        flat = (sums[:, None] + table[lasts]).flatten()  # (beams * V,), beam-major
        order = torch.sort(flat, descending=True, stable=True).indices
        new_seqs, new_sums = [], []
        for rank, index in enumerate(order.tolist()):
            if rank >= beam_width and len(new_seqs) == beam_width:
                break
            beam, token = divmod(index, vocab)
            if token == eos:
                if rank < beam_width:
                    done.append((seqs[beam] + [token], float(flat[index])))
            elif len(new_seqs) < beam_width:
                new_seqs.append(seqs[beam] + [token])
                new_sums.append(flat[index])
        seqs = new_seqs
        sums = torch.stack(new_sums) if new_sums else torch.zeros(0, dtype=torch.float64)
        if len(done) >= beam_width or not seqs:
            break
    done += [(s, float(x)) for s, x in zip(seqs, sums)]
    scores = torch.tensor([total / len(s) ** length_penalty for s, total in done], dtype=torch.float64)
    best = int(torch.argmax(scores))
    return done[best][0], float(scores[best])

"""Which kv head each query head of kata 07 read, from outputs built to show it, and the failure that says so."""

import numpy as np

from checker.hidden.gqa.variants import TILED, _tiled, kv_head_of, tiled_head_of
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, close, describe_difference, tolerance


def _heads_list(heads):
    return "[" + ", ".join("?" if j is None else str(j) for j in heads) + "]"


def mapping_failure(used, h_q, h_kv, call, subject="query head", source="kv head", rule=None, setting=None,
                     verbs=("used", "used", "should use"), tiled=TILED,
                     right_rule="query head i reads kv head i // (h_q / h_kv), the group of h_q / h_kv consecutive "
                                "query heads it belongs to"):
    """A Failure naming the first head that read the wrong source head, or None if every one read its own.

    `used[i]` is the source head that head i read (None: a mix, or none); tiled heads name kv-heads-tiled.
    """
    right = [kv_head_of(i, h_q, h_kv) for i in range(h_q)]
    if used == right:
        return None
    i = next(i for i, (got, want) in enumerate(zip(used, right)) if got != want)
    rule = rule or f"i // {h_q // h_kv}"
    setting = setting or f"h_q={h_q}, h_kv={h_kv}"
    read = f"no single {source} (a mix, or nothing)" if used[i] is None else f"{source} {used[i]}"
    did, all_did, should = verbs
    detail = (f"{call}: {subject} {i} {did} {read}; with {setting} it {should} {source} {right[i]} "
              f"({rule}); {subject}s 0-{h_q - 1} {all_did} {source}s {_heads_list(used)}, expected "
              f"{_heads_list(right)}")
    if used == [tiled_head_of(i, h_q, h_kv) for i in range(h_q)]:
        return Failure(f"{detail}: {tiled}", "kv-heads-tiled", exact=True)
    return Failure(f"{detail}: {right_rule}")


def kv_heads_read(out, h_kv):
    """For each query head, the one kv head whose one-hot value (channel j = kv head j) fills its output, or None."""
    out = np.asarray(out, np.float64)
    magnitude = np.abs(out).max(axis=(0, 2))  # (h_q, d_v): how much of each channel each query head holds
    used = []
    for row in magnitude:
        filled = np.flatnonzero(row > 1e-3 * max(float(row.max()), 1e-12))
        used.append(int(filled[0]) if len(filled) == 1 and filled[0] < h_kv and np.isfinite(row).all() else None)
    return used


def input_heads(got, x):
    """For each head of repeat_kv's output, the input head it equals (everywhere, every example), or None."""
    found = []
    for j in range(got.shape[1]):
        equal = [h for h in range(x.shape[1]) if close(got[:, j], x[:, h], *tolerance(got, x)).all()]
        found.append(equal[0] if len(equal) == 1 else None)
    return found


def tiled_on_values(kata, ref, shapes=((2, 6, 3, 3, 5, 4, 3), (3, 8, 2, 2, 4, 5, 2))):
    """(True, '') when the learner's outputs on random values equal attention with query head i over kv head
    i % h_kv, for two groupings: one-hot values show which kv head fills an output slot, not which query that
    slot's output belongs to, so a permutation of the right outputs looks tiled there. Else (False, what the
    outputs on random values look like next to the right ones)."""
    rng = np.random.default_rng(71)  # its own stream: the tests' inputs stay what they are
    for b, h_q, h_kv, n_q, n_k, d, d_v in shapes:
        q, k = rng.normal(size=(b, h_q, n_q, d)), rng.normal(size=(b, h_kv, n_k, d))
        v = rng.normal(size=(b, h_kv, n_k, d_v))
        try:
            got = np.asarray(kata.grouped_query_attention(q, k, v, causal=False), np.float64)
        except LearnerError:
            return False, ""
        rtol, atol = tolerance(got, q.astype(np.float32))
        if got.shape == q.shape[:-1] + (d_v,) and close(got, _tiled(q, k, v, causal=False), rtol, atol).all():
            continue
        want = ref.grouped_query_attention(q, k, v, causal=False)
        looks = describe_difference(got, want, rtol, atol, ("example", "query head", "query", "channel")) \
            if got.shape == want.shape else ""
        return False, (f"yet on random values (h_q={h_q}, h_kv={h_kv}) the outputs are not attention over kv head "
                       f"i % h_kv" + (f": {looks}" if looks else ""))
    return True, ""

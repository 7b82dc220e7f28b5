"""Which kv head each query head of kata 07 read, from outputs built to show it, and the failure that says so."""

import numpy as np

from checker.hidden.gqa.variants import TILED, kv_head_of, tiled_head_of
from checker.engine.testkit import Failure, close, tolerance


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

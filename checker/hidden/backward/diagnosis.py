"""Kata 11's diagnosis of three gradients: which of dq, dk and dv is wrong and in which rows, the buggy
variant all three equal (named only then), a blocked key or an empty query that got gradient, the dS that
the learner's dq implies (a picture), and k.T on a batch told from the error NumPy raises."""

import numpy as np

from checker.hidden.backward.variants import RIVALS, VARIANTS, flat, right_ds
from checker.engine.testkit import Failure, Suspects, WeightGrid, close, numbers_apart, tolerance

GRADS = ("dq", "dk", "dv")
ROWS = {"dq": ("query", "queries"), "dk": ("key", "keys"), "dv": ("key", "keys")}
FLOAT32_EPS = float(np.finfo(np.float32).eps)


def grad_tolerance(q, k, *arrays):
    """(rtol, atol) for gradients divided by their largest right magnitude: float32 arithmetic anywhere
    inside is honest, and its rounding of a score s (about eps * |s|) reaches every weight through exp,
    so the slack grows with the largest score the inputs can make."""
    rtol, atol = tolerance(*arrays)
    q64, k64 = np.asarray(q, np.float64), np.asarray(k, np.float64)
    largest = np.abs(q64).sum(-1).max(initial=0) * np.abs(k64).max(initial=0) / np.sqrt(q64.shape[-1])
    slack = 64 * FLOAT32_EPS * (1 + float(largest))
    return max(rtol, slack), max(atol, slack)


def scales_of(want):
    """Each right gradient's largest magnitude (1 for an all-zero one): the unit it is compared in."""
    return tuple(float(np.abs(w).max(initial=0)) or 1.0 for w in want)


def _spans(numbers):
    """[0, 1, 2, 5] as `0-2, 5`."""
    spans, start = [], numbers[0]
    for previous, number in zip(numbers, list(numbers[1:]) + [None]):
        if number is None or number != previous + 1:
            spans.append(f"{start}" if start == previous else f"{start}-{previous}")
            start = number
    return ", ".join(spans)


def rows_text(bad, name):
    """Which rows of a gradient are wrong: `queries 0-1 at [1, 0]; query 2 at [1, 1]`, or `keys 3-4 in every
    example and head` when every (example, head) has the same ones. `bad` is (..., n) bool."""
    one, many = ROWS[name]
    lead = bad.shape[:-1]
    groups = [(index, [int(i) for i in np.flatnonzero(bad[index])]) for index in np.ndindex(*lead)]
    groups = [(index, rows) for index, rows in groups if rows]

    def noun(rows):
        return f"{one if len(rows) == 1 else many} {_spans(rows)}"

    if not lead:
        return noun(groups[0][1])
    if len(groups) == int(np.prod(lead)) and all(rows == groups[0][1] for _, rows in groups):
        return f"{noun(groups[0][1])} in every example and head" if len(groups) > 1 else \
            f"{noun(groups[0][1])} at {list(groups[0][0])}"
    parts = [f"{noun(rows)} at {list(index)}" for index, rows in groups]
    return "; ".join(parts[:3]) + ("; ..." if len(parts) > 3 else "")


def _first(got, want, scale, rtol, atol):
    """Where the first wrong number is (found in units of `scale`), and its value against the right one."""
    index = tuple(int(i) for i in np.argwhere(~close(got / scale, want / scale, rtol, atol))[0])
    return f"at {list(index)}: got %s, expected %s" % numbers_apart(got[index], want[index])


def where_text(got, want, scales, rtol, atol):
    """`dv is right; dq is wrong in queries 0-1 at [1] (at [1, 0, 2]: got 0.31, expected 0.12); ...`"""
    parts, wrong = [], []
    for name, g, w, s in zip(GRADS, got, want, scales):
        bad = ~close(g / s, w / s, rtol, atol)
        if bad.any():
            wrong.append(name)
            parts.append(f"{name} is wrong in {rows_text(bad.any(axis=-1), name)} ({_first(g, w, s, rtol, atol)})")
    right = [name for name in GRADS if name not in wrong]
    head = f"{' and '.join(right)} {'is' if len(right) == 1 else 'are'} right; " if right else ""
    return head + "; ".join(parts), wrong


def leaks_text(got, allowed):
    """Gradient where the contract says there is none: a key no query may see with a non-zero dk or dv, a
    query with no visible key with a non-zero dq (the first of each, as text), or ''."""
    dq, dk, dv = got
    found = []
    for name, grad, empty in (("dk", dk, ~allowed.any(axis=-2)), ("dv", dv, ~allowed.any(axis=-2)),
                              ("dq", dq, ~allowed.any(axis=-1))):
        if grad.shape[:-1] != empty.shape:
            continue  # summed over broadcast axes: its rows are not one (example, head)'s
        leaked = empty & (np.abs(grad) > 0).any(axis=-1)
        if leaked.any():
            *lead, row = (int(i) for i in np.argwhere(leaked)[0])
            at = f" at {lead}" if lead else ""
            what = "is blocked for every query" if name != "dq" else "sees no key"
            found.append(f"{ROWS[name][0]} {row}{at} {what}, yet its {name} row is not 0 "
                         f"(largest {np.abs(grad[(*lead, row)]).max():.3g})")
    return "; ".join(found[:2])


def ds_picture(dq, q, k, v, d_out, allowed):
    """The dS the learner's dq implies (dq = dS . k / sqrt(d) solved for dS, when k's rows are independent and
    dq lies in their span), beside the right one, for the first example and head where dq is wrong; None when
    the tables are too large or dq is no such product."""
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if max(n_q, n_k) > 8 or d < n_k or dq.shape != q.shape or q.shape[:-2] != allowed.shape[:-2]:
        return None
    want_ds = right_ds(q, k, v, d_out, allowed)  # (..., n_q, n_k)
    k_full = np.broadcast_to(k, (*allowed.shape[:-2], n_k, d))
    for index in np.ndindex(*allowed.shape[:-2]):
        keys = k_full[index]
        if np.linalg.matrix_rank(keys) < n_k:
            continue
        implied = np.sqrt(d) * dq[index] @ np.linalg.pinv(keys)  # (n_q, n_k)
        if not np.allclose(implied @ keys / np.sqrt(d), dq[index], rtol=1e-6, atol=1e-9):
            return None  # dq is not dS . k for any dS: nothing to draw
        if not np.allclose(implied, want_ds[index], rtol=1e-3, atol=1e-4):
            return WeightGrid(implied, want_ds[index], allowed[index],
                              "dS" + (f" {list(index)}" if index else "") + " (from your dq; each right row sums to 0)")
    return None


def compare(got, want, call, q, k, v, d_out, allowed, why="", variants=VARIANTS, doubt=None):
    """Fail unless the learner's (dq, dk, dv) match the right ones; name the bug whose variant gives all three
    (unless `doubt(bug id)` gives the reason it has no evidence, and no mistake outside the catalogue gives them
    too), else say which gradients are wrong and where."""
    rtol, atol = grad_tolerance(q, k, *got, q, k, v, d_out)
    scales = scales_of(want)
    if all(close(g / s, w / s, rtol, atol).all() for g, w, s in zip(got, want, scales)):
        return
    text, wrong = where_text(got, want, scales, rtol, atol)
    args = tuple(np.asarray(x, np.float64) for x in (q, k, v, d_out))
    matched = Suspects(variants, *args, allowed, scales, rivals=RIVALS).match(flat(got, scales), flat(want, scales),
                                                                              rtol, atol)
    doubted = doubt(matched[0]) if matched and doubt else ""
    nonfinite = any(bool((~np.isfinite(g)).any()) for g in got)
    picture = ds_picture(np.asarray(got[0], np.float64), *args, allowed) if "dq" in wrong else None
    if matched and not doubted:
        raise Failure(f"{call}: {text}: {matched[1]}", matched[0], exact=True, nonfinite=nonfinite, picture=picture)
    leaks = leaks_text(got, allowed)
    reasons = [r for r in (leaks, doubted, why) if r]
    raise Failure(f"{call}: {text}" + "".join(f": {r}" for r in reasons), nonfinite=nonfinite, picture=picture)


# --- k.T on a batch, told from the error it raises ----------------------------------------------------------

def _products(q, k, v, d_out, mask):
    """The products of a backward pass that transpose an operand, each with that operand reversed whole (.T)
    the way a batched .T does (q . k^T, P^T . d_out, d_out . v^T, dS^T . q), and the products that put the
    wrong operand in place (P . d_out, dS . q, dS^T . k): the errors of the first name batch-transpose, unless
    one of the second raises the same."""
    lead = np.broadcast_shapes(*(np.shape(x)[:-2] for x in (q, k, v) + (() if mask is None else (mask,))))
    p = np.zeros((*lead, np.shape(q)[-2], np.shape(k)[-2]))  # (..., n_q, n_k): P and dS
    zq, zk, zv, zd = (np.zeros(np.shape(x)) for x in (q, k, v, d_out))
    reversed_whole = (("k", zq, zk.T), ("P", p.T, zd), ("v", zd, zv.T), ("dS", p.T, zq))
    misplaced = ((p, zd), (p, zq), (np.swapaxes(p, -1, -2), zk))
    return reversed_whole, misplaced


def _error(a, b):
    """The errors `a @ b` raises: NumPy's message, and the one torch.matmul gives the same shapes (a PyTorch
    file's k.T reverses every axis as NumPy's does), or () when the product works."""
    try:
        a @ b
    except ValueError as error:
        return (str(error),) + _torch_broadcast_error(a.shape, b.shape)
    return ()


def _torch_broadcast_error(a_shape, b_shape):
    """torch.matmul's message when the batch dims (all but the last two) of shapes a and b do not broadcast, as
    torch's infer_size words it, counted from the right, without importing torch; else ()."""
    if len(a_shape) < 3 and len(b_shape) < 3:
        return ()
    a_batch, b_batch = tuple(a_shape[:-2]), tuple(b_shape[:-2])
    ndim = max(len(a_batch), len(b_batch))
    for offset in range(1, ndim + 1):
        x = a_batch[-offset] if offset <= len(a_batch) else 1
        y = b_batch[-offset] if offset <= len(b_batch) else 1
        if x != y and x != 1 and y != 1:
            return (f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension "
                    f"{ndim - offset}",)
    return ()


def shape_error(message, q, k, v, d_out, mask=None):
    """What made `message`, the learner's error, when it is the very error NumPy raises for one of the backward
    pass's products done wrong: ("misplaced", None) for an operand put where another belongs (P . d_out,
    dS . q, dS^T . k: a misplaced P and dS . q raise the same, so no bug is named), ("transposed", name) for
    a batched operand reversed whole by .T; else None."""
    reversed_whole, misplaced = _products(q, k, v, d_out, mask)
    if any(text in message for a, b in misplaced for text in _error(a, b)):
        return "misplaced", None
    for name, a, b in reversed_whole:
        if max(a.ndim, b.ndim) >= 3 and any(text in message for text in _error(a, b)):
            return "transposed", name
    return None

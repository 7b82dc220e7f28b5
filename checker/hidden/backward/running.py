"""Running attention_backward on the learner's side and judging its (dq, dk, dv): the call as text, the shape
error of a batched .T named, the three gradients' shapes (dv transposed, a broadcast input not summed back),
then their values (diagnosis.compare); and the inputs the tests build."""

import numpy as np

from checker.hidden.backward.diagnosis import GRADS, compare, shape_error
from checker.sandbox import LearnerError
from checker.engine.testkit import Failure, as_array, call_text, close, expect_float, tolerance


def call_of(q, k, v, d_out, mask=None, mask_text=None):
    text = call_text("attention_backward", q=np.asarray(q), k=np.asarray(k), v=np.asarray(v), d_out=np.asarray(d_out))
    if mask is not None:
        text = text[:-1] + f", {mask_text or f'mask {np.shape(mask)}'})"
    return text


def learner(function, call, args, mask):
    """The learner's call; the shape error of a batched .T is named, and that of an operand in another's place
    explained, instead of left a crash."""
    try:
        return function(*args, *(() if mask is None else (mask,)))
    except LearnerError as error:
        found = None if error.not_implemented else shape_error(error.message, *args[:4], mask)
        if found is None:
            raise
        kind, operand = found
        if kind == "misplaced":
            n_q, n_k = np.shape(args[0])[-2], np.shape(args[1])[-2]
            raise Failure(f"{call} raised {error}: a product of P or dS with the wrong partner, which only fits when "
                          f"n_q = n_k (here {n_q} and {n_k}); the ones that fit: dv = P^T . d_out, (n_k, n_q) . "
                          "(n_q, d_v), dq = dS . k, (n_q, n_k) . (n_k, d), dk = dS^T . q, (n_k, n_q) . (n_q, d)") from None
        raise Failure(f"{call} raised {error}: {operand} is batched, and {operand}.T reverses every axis, not just "
                      f"the last two; use np.swapaxes({operand}, -1, -2)", "batch-transpose", exact=True) from None


def as_triple(got, call):
    if not isinstance(got, (tuple, list)) or len(got) != 3:
        raise Failure(f"{call} returned {type(got).__name__}" + (f" of {len(got)}" if isinstance(got, (tuple, list))
                      else "") + ", expected the triple (dq, dk, dv)")
    return tuple(as_array(g, f"{call} ({name})") for g, name in zip(got, GRADS))


def expect_shapes(got, want, inputs, call):
    """Each gradient has its input's shape; dv with its last two axes swapped, and a gradient not summed back
    over broadcast axes, are said as what they are."""
    for name, g, w, x in zip(GRADS, got, want, inputs):
        if g.shape == w.shape:
            expect_float(g, f"{call} ({name})")
            continue
        if name == "dv" and g.shape == np.swapaxes(w, -1, -2).shape and \
                close(np.swapaxes(g, -1, -2), w, *tolerance(g, w)).all():
            raise Failure(f"{call} returned dv of shape {g.shape}, expected {w.shape}: it is (P^T . d_out)^T = "
                          "d_out^T . P: P was not transposed; dv = P^T . d_out, (n_k, n_q) . (n_q, d_v)",
                          "grad-dv-not-transposed", exact=True)
        text = f"{call} returned {name} of shape {g.shape}, expected {w.shape}, the shape of {name[1:]}"
        if g.ndim > w.ndim or (g.ndim == w.ndim and any(a > b == 1 for a, b in zip(g.shape, w.shape))):
            text += f": {name[1:]} was broadcast; sum its gradient over the axes broadcasting added or stretched"
        raise Failure(text)


def check(kata, ref, q, k, v, d_out, mask=None, mask_text=None, why=""):
    call = call_of(q, k, v, d_out, mask, mask_text)
    got = as_triple(learner(kata.attention_backward, call, (q, k, v, d_out), mask), call)
    want = ref.attention_backward(*(np.asarray(x, np.float64) for x in (q, k, v, d_out)), mask)
    lead = np.broadcast_shapes(*(np.shape(x)[:-2] for x in (q, k, v) + (() if mask is None else (mask,))))
    shape = (*lead, np.shape(q)[-2], np.shape(k)[-2])  # (..., n_q, n_k): the weights'
    allowed = np.ones(shape, bool) if mask is None else np.broadcast_to(np.asarray(mask, bool), shape)
    judge(got, want, call, q, k, v, d_out, allowed, why, doubt=_scale_doubt(kata, ref))


def judge(got, want, call, q, k, v, d_out, allowed, why="", doubt=None):
    expect_shapes(got, want, (q, k, v), call)
    compare(got, want, call, q, k, v, d_out, allowed, why, doubt=doubt)


def _scale_doubt(kata, ref):
    """The reason a matched grad-missing-scale has no evidence, or '': a softmax_backward off by a constant
    factor scales dq and dk alike, so the name needs the learner's softmax_backward right (asked only then)."""

    def doubt(bug_id):
        if bug_id != "grad-missing-scale":
            return ""
        probe = np.random.default_rng(11)  # its own stream: the tests' inputs stay what they are
        x, dy = probe.normal(size=(2, 5)), probe.normal(size=(2, 5))
        y = np.exp(x - x.max(axis=-1, keepdims=True))
        y /= y.sum(axis=-1, keepdims=True)
        try:
            got = np.asarray(kata.softmax_backward(y, dy), np.float64)
            right = got.shape == y.shape and bool(close(got, ref.softmax_backward(y, dy), *tolerance(got)).all())
        except Exception:  # noqa: BLE001 - a crash or a non-array is a wrong softmax_backward too
            right = False
        return "" if right else ("softmax_backward is itself wrong (see its own tests), and a factor there "
                                 "scales dq and dk alike: put it right first")

    return doubt


def inputs(rng, lead, n_q, n_k, d, d_v):
    return (rng.normal(size=(*lead, n_q, d)), rng.normal(size=(*lead, n_k, d)), rng.normal(size=(*lead, n_k, d_v)),
            rng.normal(size=(*lead, n_q, d_v)))


def causal(n_q, n_k):
    return np.arange(n_k)[None, :] <= np.arange(n_k - n_q, n_k)[:, None]  # (n_q, n_k), bottom-right as kata 03


def queries_for(scores, k):
    """Queries whose scaled scores against k are exactly `scores` (k has d >= n_k)."""
    return np.sqrt(k.shape[-1]) * scores @ np.linalg.pinv(np.swapaxes(k, -1, -2))  # (..., n_q, d)

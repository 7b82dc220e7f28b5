"""What code carrying each catalogued bug of kata 11 computes, to recognise it by its output.

softmax_backward variants take (y, dy, axis) like softmax_backward. Attention variants take
(q, k, v, d_out, allowed, scales) in float64, `allowed` being the mask broadcast to the weights' shape
(all True without one), and return the three gradients end to end, (dq, dk, dv) flattened, each divided
by its number of `scales` (the right gradient's largest magnitude): one comparison then judges all three
at one tolerance. Each variant is the right backward pass with one piece changed: the forward it
recomputes is built from kata 03's pieces (its scale, masking and softmax bugs keep their ids here),
the backward from the pieces below.
"""

import numpy as np

from checker.hidden.causal_mask import variants as attention
from checker.hidden.scores import variants as scale
from checker.hidden.softmax import variants as softmax_pieces
from checker.engine.testkit import variant, variants_in


# --- softmax_backward: the Jacobian-vector product and its bugs ---------------------------------------

def jvp(y, dy, axis=-1):
    """y * (dy - sum(dy * y)): the right product of the softmax's Jacobian with dy."""
    return y * (dy - np.sum(dy * y, axis=axis, keepdims=True))


@variant("softmax-grad-diagonal", of="softmax_backward")
def diagonal_only(y, dy, axis=-1):
    """only the Jacobian's diagonal, dx = y * (1 - y) * dy: the off-diagonal terms -y_i * y_j * dy_j are
    missing; dx = y * (dy - sum(dy * y))"""
    return y * (1 - y) * dy


@variant("softmax-grad-no-sum", of="softmax_backward")
def without_sum(y, dy, axis=-1):
    """dx = y * dy: the term -y * sum(dy * y) is missing; dx = y * (dy - sum(dy * y))"""
    return y * dy


def _summed_along(other):
    """The JVP with its sum taken along axis `other`, wherever the softmax's axis is (a variant that cannot
    happen on an input, `other` being that axis or beyond the array, raises)."""

    def summed(y, dy, axis=-1):
        if not -y.ndim <= other < y.ndim or other % y.ndim == axis % y.ndim:
            raise ValueError("not another axis")
        return y * (dy - np.sum(dy * y, axis=other, keepdims=True))

    summed.__doc__ = (f"sum(dy * y) was taken along axis {other}, not along the softmax's axis: each slice's "
                      "sum runs along the axis the softmax normalised")
    return variant("softmax-grad-wrong-axis", of="softmax_backward")(summed)


WRONG_AXIS = [_summed_along(other) for other in (-1, -2, 0, 1, 2)]
SOFTMAX_BACKWARD_VARIANTS = variants_in(globals(), of="softmax_backward")


# --- attention_backward: the right pieces ------------------------------------------------------------

def weights(q, k, allowed, divisor=scale.right_divisor, masking=attention.fill_guarded, softmax=attention.softmax):
    """The forward pass's P (..., n_q, n_k), built from kata 03's pieces."""
    return masking(attention.scores(q, k, divisor), allowed, softmax)


def _back_to(grad, shape):
    """grad summed over what broadcasting added to an input of `shape`."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def _t(x):
    return np.swapaxes(x, -1, -2)


def gradients(q, k, v, d_out, p, softmax_jvp=jvp, unscaled=(), dv_rule=None, dq_rule=None, dk_rule=None,
              ds_weights=None):
    """(dq, dk, dv) from the weights p, each piece replaceable by a bug's: `unscaled` names the gradients
    without the 1/sqrt(d), `ds_weights` the weights dS is taken from when they are not dv's."""
    s = 1 / np.sqrt(q.shape[-1])
    dv = dv_rule(p, d_out) if dv_rule else _t(p) @ d_out  # (..., n_k, d_v)
    ds = softmax_jvp(p if ds_weights is None else ds_weights, d_out @ _t(v))  # (..., n_q, n_k)
    dq = (dq_rule(ds, q, k) if dq_rule else ds @ k) * (1.0 if "dq" in unscaled else s)  # (..., n_q, d)
    dk = (dk_rule(ds, q, k) if dk_rule else _t(ds) @ q) * (1.0 if "dk" in unscaled else s)  # (..., n_k, d)
    return _back_to(dq, q.shape), _back_to(dk, k.shape), _back_to(dv, v.shape)


def flat(grads, scales):
    """The three gradients end to end, each divided by its scale."""
    return np.concatenate([np.asarray(g, np.float64).reshape(-1) / s for g, s in zip(grads, scales)])


def _computed(doc, forward=None, ds_forward=None, **pieces):
    """The right backward pass with one piece changed, as (q, k, v, d_out, allowed, scales) -> flat: `forward`
    replaces the recomputed weights (q, k, allowed) -> P, `ds_forward` those dS alone is taken from; `pieces`
    go to `gradients`."""

    def computed(q, k, v, d_out, allowed, scales):
        with np.errstate(all="ignore"):
            p = (forward or weights)(q, k, allowed)
            ds_weights = ds_forward(q, k, allowed) if ds_forward else None
            return flat(gradients(q, k, v, d_out, p, ds_weights=ds_weights, **pieces), scales)

    computed.__doc__ = " ".join(doc.split())
    return computed


def backward_variant(bug_id, doc, **changes):
    """An attention variant of `bug_id`: the right backward pass with one piece changed (see `_computed`)."""
    return variant(bug_id, of="attention_backward")(_computed(doc, **changes))


def right(q, k, v, d_out, allowed):
    """The right (dq, dk, dv), in float64, from the same pieces."""
    return gradients(q, k, v, d_out, weights(q, k, allowed))


def right_ds(q, k, v, d_out, allowed):
    """The right dS (..., n_q, n_k), for pictures."""
    return jvp(weights(q, k, allowed), d_out @ _t(v))


# --- attention_backward: what the catalogued bugs compute ----------------------------------------------

def _in_attention(softmax_variant):
    def product(p, dp):
        return softmax_variant(p, dp, -1)

    return product


JVP_BUGS = [backward_variant(f.variant_of, f.__doc__, softmax_jvp=_in_attention(f))
            for f in (diagonal_only, without_sum, _summed_along(-2), _summed_along(0))]

def _scale_told(computed):
    """`computed` only where sqrt(d) is no factor 2: there a doubled term (2 * y * (...) in softmax_backward)
    makes the same numbers as a missing scale, so the input has no evidence of it."""

    def told(q, k, v, d_out, allowed, scales):
        if np.isclose(np.sqrt(q.shape[-1]), 2.0):
            raise ValueError("sqrt(d) = 2: a doubled term gives the same factor")
        return computed(q, k, v, d_out, allowed, scales)

    told.__doc__ = computed.__doc__
    return variant("grad-missing-scale", of="attention_backward")(told)


SCALE_BUGS = [
    _scale_told(_computed("dq and dk lack the forward pass's 1/sqrt(d): the scores were scaled, so their gradients "
                          "carry the same factor", unscaled=("dq", "dk"))),
    _scale_told(_computed("dq lacks the forward pass's 1/sqrt(d) (dk has it): the scores were scaled, so both "
                          "their gradients carry the same factor; dq = dS . k / sqrt(d)", unscaled=("dq",))),
    _scale_told(_computed("dk lacks the forward pass's 1/sqrt(d) (dq has it): the scores were scaled, so both "
                          "their gradients carry the same factor; dk = dS^T . q / sqrt(d)", unscaled=("dk",))),
    backward_variant("missing-scale", "the recomputed scores lack the 1/sqrt(d) scale (S = q . k^T / sqrt(d)), "
                     "and so do dq and dk", forward=lambda q, k, a: weights(q, k, a, divisor=scale._no_divisor),
                     unscaled=("dq", "dk")),
    backward_variant("missing-scale", "the recomputed scores lack the 1/sqrt(d) scale: S = q . k^T / sqrt(d)",
                     forward=lambda q, k, a: weights(q, k, a, divisor=scale._no_divisor)),
]


def _dv_untransposed(p, d_out):
    if p.shape[-1] != p.shape[-2]:
        raise ValueError("only a square P can multiply d_out untransposed")
    return p @ d_out


def _dq_from_q(ds, q, k):
    return ds @ q


def _dk_from_k(ds, q, k):
    return _t(ds) @ k


OPERAND_BUGS = [
    backward_variant("grad-dv-not-transposed", "dv = P . d_out: P was not transposed; dv = P^T . d_out, "
                     "(n_k, n_q) . (n_q, d_v)", dv_rule=_dv_untransposed),
    backward_variant("grad-dq-dk-swapped", "dq = dS . q: the operands of dq and dk are swapped; dq = dS . k / "
                     "sqrt(d) and dk = dS^T . q / sqrt(d)", dq_rule=_dq_from_q),
    backward_variant("grad-dq-dk-swapped", "dk = dS^T . k: the operands of dq and dk are swapped; dq = dS . k / "
                     "sqrt(d) and dk = dS^T . q / sqrt(d)", dk_rule=_dk_from_k),
    backward_variant("grad-dq-dk-swapped", "dq = dS . q and dk = dS^T . k: the operands of dq and dk are "
                     "swapped; dq = dS . k / sqrt(d) and dk = dS^T . q / sqrt(d)", dq_rule=_dq_from_q,
                     dk_rule=_dk_from_k),
]


def _unmasked(q, k, allowed):
    return weights(q, k, np.ones_like(allowed))


def _masked_for(masking, softmax=attention.softmax):
    def forward(q, k, allowed):
        return weights(q, k, allowed, masking=masking, softmax=softmax)

    return forward


FORWARD_BUGS = (
    [backward_variant("backward-ignores-mask", "the weights were recomputed without the mask, so gradient "
                      "reaches blocked keys: apply the mask to the recomputed scores", forward=_unmasked),
       backward_variant("backward-ignores-mask", "dv used the masked weights, but dS was taken from weights "
                        "recomputed without the mask, so gradient reaches blocked keys through dq and dk: dS "
                        "= P * (dP - rowsum(dP * P)) with the masked P", ds_forward=_unmasked)]
    + [backward_variant("mask-after-softmax", "the recomputed weights were masked after the softmax (zeroed, "
                        "so the rest no longer sum to 1): block the scores before it", forward=_masked_for(m))
       for m in (attention.zeroed_after, attention.renormalised_after, attention.renormalised_after_nan)]
    + [backward_variant("full-row-nan", "a query with no visible key got NaN weights (-inf - (-inf)), and the "
                        "NaN spread through dS into the gradients: give it zero weights",
                        forward=_masked_for(attention.fill_neg_inf))]
    + [backward_variant("full-row-uniform", "a query with no visible key got uniform weights from a finite "
                        "fill, so it passed gradient to every key: give it zero weights",
                        forward=_masked_for(m)) for m in (attention.fill_finite, attention.bias_finite)]
    + [backward_variant("no-max-shift", "the recomputed softmax took exp(score) without subtracting each row's "
                        "maximum: it overflowed to inf / inf = NaN",
                        forward=_masked_for(attention.fill_guarded, softmax_pieces.no_shift))])

VARIANTS = variants_in(globals(), of="attention_backward")


# --- attention_backward: mistakes outside the catalogue that make the same numbers on some inputs -----------

def _global_max_softmax(x, axis=-1):
    """kata 02's global-max softmax, its 0 / 0 rows guarded to 0 (as code that divides with a guard writes)."""
    e = np.exp(x - np.max(x[np.isfinite(x)], initial=0.0))
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


RIVALS = [
    # a row far below the whole table's maximum underflows to all-zero weights, as a mask after the softmax
    # leaves a row whose visible keys scored far below a blocked one
    _computed("a global max shift", forward=_masked_for(attention.fill_guarded, softmax_pieces._global_max)),
    _computed("a global max shift, guarded", forward=_masked_for(attention.fill_guarded, _global_max_softmax)),
]

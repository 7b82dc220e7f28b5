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
from checker.testkit import variant, variants_in


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


def gradients(q, k, v, d_out, p, softmax_jvp=jvp, grad_scale=True, dv_rule=None, dq_rule=None, dk_rule=None):
    """(dq, dk, dv) from the weights p, each piece replaceable by a bug's."""
    s = 1 / np.sqrt(q.shape[-1]) if grad_scale else 1.0
    dv = dv_rule(p, d_out) if dv_rule else _t(p) @ d_out  # (..., n_k, d_v)
    ds = softmax_jvp(p, d_out @ _t(v))  # (..., n_q, n_k)
    dq = (dq_rule(ds, q, k) if dq_rule else ds @ k) * s  # (..., n_q, d)
    dk = (dk_rule(ds, q, k) if dk_rule else _t(ds) @ q) * s  # (..., n_k, d)
    return _back_to(dq, q.shape), _back_to(dk, k.shape), _back_to(dv, v.shape)


def flat(grads, scales):
    """The three gradients end to end, each divided by its scale."""
    return np.concatenate([np.asarray(g, np.float64).reshape(-1) / s for g, s in zip(grads, scales)])


def backward_variant(bug_id, doc, forward=None, **pieces):
    """An attention variant: the right backward pass with one piece changed. `forward` replaces the
    recomputed weights (q, k, allowed) -> P; `pieces` go to `gradients`."""

    def computed(q, k, v, d_out, allowed, scales):
        with np.errstate(all="ignore"):
            p = (forward or weights)(q, k, allowed)
            return flat(gradients(q, k, v, d_out, p, **pieces), scales)

    computed.__doc__ = " ".join(doc.split())
    return variant(bug_id, of="attention_backward")(computed)


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

SCALE_BUGS = [
    backward_variant("grad-missing-scale", "dq and dk lack the forward pass's 1/sqrt(d): the scores were "
                     "scaled, so their gradients carry the same factor", grad_scale=False),
    backward_variant("missing-scale", "the recomputed scores lack the 1/sqrt(d) scale (S = q . k^T / sqrt(d)), "
                     "and so do dq and dk", forward=lambda q, k, a: weights(q, k, a, divisor=scale._no_divisor),
                     grad_scale=False),
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
                      "reaches blocked keys: apply the mask to the recomputed scores", forward=_unmasked)]
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

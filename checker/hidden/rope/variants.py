"""What code carrying each catalogued bug of kata 06 computes, to recognise it by its output.

Rope variants take (x, positions, base) like rope; attention variants take (q, k, v, base) like
rope_attention and are built from one rotation and katas 01-03's pieces, so a rope bug inside rope_attention
is named as the rope bug it is, and a scale, mask or softmax bug keeps its earlier id. Everything here is float64.
"""

import numpy as np

from checker.hidden.causal_mask import variants as pieces
from checker.hidden.scores import variants as scale
from checker.hidden.softmax import variants as softmax_pieces
from checker.engine.testkit import variant, variants_in


def frequencies(d, base, exponent=None):
    """theta_i for the d/2 pairs: base ** (-2i / d), or base ** exponent(i, d) for a wrong formula."""
    i = np.arange(d // 2)
    return base ** (-2.0 * i / d if exponent is None else exponent(i, d))


def turn(x, positions, base, theta=None, first=None, second=None, signs=(-1, 1), swapped=False):
    """Rotate channel first[i] with channel second[i] by p * theta_i: the shape of every rope, right or wrong.

    Right: first = 0 .. d/2 - 1, second = first + d/2, signs (-1, +1):
    out[first] = x[first] cos + s0 x[second] sin, out[second] = x[second] cos + s1 x[first] sin.
    `swapped` puts sin where cos belongs and back.
    """
    x = np.asarray(x, np.float64)
    d = x.shape[-1]
    half = d // 2
    theta = frequencies(d, base) if theta is None else theta
    first = np.arange(half) if first is None else first
    second = first + half if second is None else second
    angles = np.asarray(positions, np.float64)[..., None] * theta  # (..., n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    if swapped:
        cos, sin = sin, cos
    a, b = x[..., first], x[..., second]  # (..., n, d/2)
    out = np.empty(np.broadcast_shapes(x.shape, angles.shape[:-1] + (d,)))  # (..., n, d)
    out[..., first] = a * cos + signs[0] * b * sin
    out[..., second] = b * cos + signs[1] * a * sin
    return out


def right(x, positions, base):
    return turn(x, positions, base)


def _per_channel(x, positions, base, channel_theta, rotate):
    """x cos + rotate(x) sin with one angle per channel: a cos/sin table laid out for the other pairing."""
    x = np.asarray(x, np.float64)
    angles = np.asarray(positions, np.float64)[..., None] * channel_theta  # (..., n, d)
    return x * np.cos(angles) + rotate(x) * np.sin(angles)


def _rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def _rotate_every_two(x):
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


# --- rope: what the catalogued bugs compute ------------------------------------------------------------

@variant("rope-wrong-pairing")
def interleaved(x, positions, base):
    """channels 2i and 2i + 1 were rotated together (interleaved, GPT-J style); the contract pairs channel i
    with channel i + d/2 (half-split, Llama / GPT-NeoX rotate_half)"""
    d = np.shape(x)[-1]
    return turn(x, positions, base, first=np.arange(0, d, 2), second=np.arange(1, d, 2))


def rotate_half_with_interleaved_table(x, positions, base):
    """A rival, not catalogued: rotate_half pairs channel i with i + d/2 as the contract does, but the cos/sin
    table repeats each angle for channels 2i and 2i + 1 (GPT-J's interleaved layout), so the two channels of a
    pair turn by different angles. rope-wrong-pairing is the pairing of channels (SPEC), which is right here."""
    d = np.shape(x)[-1]
    return _per_channel(x, positions, base, np.repeat(frequencies(d, base), 2), _rotate_half)


@variant("rope-wrong-pairing")
def interleaved_with_half_table(x, positions, base):
    """channels 2i and 2i + 1 were rotated together (interleaved) with a cos/sin table laid out as two halves;
    the contract pairs channel i with channel i + d/2 (rotate_half) and gives the pair the angle p * theta_i"""
    d = np.shape(x)[-1]
    return _per_channel(x, positions, base, np.tile(frequencies(d, base), 2), _rotate_every_two)


def _wrong_theta(exponent):
    return lambda x, positions, base: turn(x, positions, base, theta=frequencies(np.shape(x)[-1], base, exponent))


def _frequency_variant(exponent, doc):
    function = variant("rope-wrong-frequency")(_wrong_theta(exponent))
    function.__doc__ = doc
    return function


FREQUENCY_VARIANTS = [
    _frequency_variant(lambda i, d: -i / d, "theta_i = base ** (-i / d) (np.arange(d // 2) / d): the exponent is "
                       "-2i / d, the even channel indices 0, 2, 4 ... over d"),
    _frequency_variant(lambda i, d: -2 * i / (d / 2), "theta_i = base ** (-2i / (d/2)) (np.arange(0, d, 2) / (d // 2)): "
                       "the exponent is -2i / d, divided by d, not d/2"),
    _frequency_variant(lambda i, d: 2 * i / d, "theta_i = base ** (+2i / d): the frequencies grow instead of falling; "
                       "theta_i = 1 / base ** (2i / d)"),
    _frequency_variant(lambda i, d: -i / max(d // 2 - 1, 1), "theta_i = base ** (-i / (d/2 - 1)) (np.linspace(0, 1, d/2)): "
                       "the exponent is -2i / d, so the slowest pair gets base ** (-(d - 2) / d), not 1 / base"),
    _frequency_variant(lambda i, d: -2 * (i + 1) / d, "theta_i = base ** (-2(i + 1) / d): pair 0 must turn by exactly 1 "
                       "radian per position, theta_0 = base ** 0"),
]


@variant("rope-rotation-sign")
def negative_angle(x, positions, base):
    """every pair turned by -angle (x cos - rotate_half(x) sin, or rotate_half = (x2, -x1)): out[i] = x[i] cos a
    - x[i + d/2] sin a, out[i + d/2] = x[i + d/2] cos a + x[i] sin a"""
    return turn(x, positions, base, signs=(1, -1))


@variant("rope-rotation-sign")
def rotate_half_unsigned(x, positions, base):
    """rotate_half lost its minus ((x2, x1), not (-x2, x1)): that is no rotation at all; out[i] = x[i] cos a
    - x[i + d/2] sin a"""
    return turn(x, positions, base, signs=(1, 1))


@variant("rope-rotation-sign")
def both_minus(x, positions, base):
    """both halves subtract the sine term: out[i + d/2] = x[i + d/2] cos a + x[i] sin a, with a plus"""
    return turn(x, positions, base, signs=(-1, -1))


@variant("rope-rotation-sign")
def sin_cos_swapped(x, positions, base):
    """sin and cos were swapped (a turn by pi/2 - angle: position 0 is not left as it is): x cos a + rotate_half(x) sin a"""
    return turn(x, positions, base, swapped=True)


@variant("rope-no-offset")
def positions_ignored(x, positions, base):
    """the rows were turned as if at positions 0, 1, ..., n - 1, not at the positions given: angle = p * theta_i with
    p the row's own position"""
    x = np.asarray(x, np.float64)
    return turn(x, np.arange(x.shape[-2]), base)


@variant("rope-no-offset")
def positions_restarted(x, positions, base):
    """the positions were restarted at 0 (each row's first position subtracted): angle = p * theta_i with p the
    absolute position given"""
    positions = np.asarray(positions)
    return turn(x, positions - positions[..., :1], base)


@variant("rope-no-offset")
def not_turned(x, positions, base):
    """nothing was turned: the positions never reached the angles (angle = p * theta_i)"""
    return np.asarray(x, np.float64) * np.ones(np.shape(positions))[..., None]


ROPE_VARIANTS = [interleaved, interleaved_with_half_table, *FREQUENCY_VARIANTS,
                 negative_angle, rotate_half_unsigned, both_minus, sin_cos_swapped, positions_ignored,
                 positions_restarted, not_turned]


# --- rope_attention ------------------------------------------------------------------------------------
# Built from katas 01-03's pieces (scores with kata 01's divisors or transposes, kata 02's softmax, kata 03's
# masks and maskings), so a bug of an earlier kata keeps its id inside rope_attention.

def bottom_right(t, n_k):
    return pieces.right_mask(t, n_k)  # (t, n_k): query i is position n_k - t + i


def _scores(q, k):
    return pieces.scores(q, k)  # (..., t, n_k), divided by sqrt(d)


def attend(q, k, v, base, rotate=right, query_positions=None, visible=bottom_right, rotate_values=False,
           score=_scores, masking=pieces.fill_guarded, softmax=pieces.softmax):
    """rope_attention with one piece swapped for a buggy one."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    t = q.shape[-2]
    n_k = k.shape[-2]
    query_positions = np.arange(n_k - t, n_k) if query_positions is None else query_positions
    q, k = rotate(q, query_positions, base), rotate(k, np.arange(n_k), base)  # (..., t, d), (..., n_k, d)
    if rotate_values:
        v = rotate(v, np.arange(n_k), base)
    weights = masking(score(q, k), visible(t, n_k), softmax)  # (..., t, n_k)
    return weights @ v  # (..., t, d_v)


def _with_rope(rope_variant):
    def attention(q, k, v, base):
        return attend(q, k, v, base, rotate=rope_variant)

    attention.variant_of = rope_variant.variant_of
    attention.__doc__ = f"inside rope_attention, {rope_variant.__doc__}"
    return attention


@variant("rope-no-offset", of="attention")
def queries_from_zero(q, k, v, base):
    """the new queries were rotated as if at positions 0 ... t-1; they are the LAST t of the n_k positions, so query i
    turns by (n_k - t + i) * theta"""
    return attend(q, k, v, base, query_positions=np.arange(np.shape(q)[-2]))


@variant("rope-rotates-values", of="attention")
def values_rotated(q, k, v, base):
    """the values were rotated too: RoPE turns queries and keys only, the values are mixed as they are"""
    return attend(q, k, v, base, rotate_values=True)


def _built(bug_id, doc, **swapped):
    """An attention variant: rope_attention with the pieces in `swapped` taken from an earlier kata's bug."""

    def attention(q, k, v, base):
        return attend(q, k, v, base, **swapped)

    attention.__doc__ = " ".join(doc.split()).replace("n_q", "t").replace("d_k", "d")
    return variant(bug_id, of="attention")(attention)


def _divided(divisor):
    return lambda q, k: pieces.scores(q, k, divisor)


def _over_queries(x):
    return softmax_pieces.stable(x, axis=-2)


EARLIER_SCALES = ("missing-scale", "scale-by-dk", "scale-inverted")
EARLIER_MASKS = ("mask-top-left", "mask-blocks-diagonal", "mask-flipped")
FROM_EARLIER_KATAS = (
    [_built(divisor.variant_of, divisor.__doc__, score=_divided(divisor))
     for divisor in variants_in(vars(scale), of="divisor") if divisor.variant_of in EARLIER_SCALES]
    + [_built(table.variant_of, table.__doc__, score=table) for table in variants_in(vars(scale), of="scores")
       if table.variant_of in ("batch-transpose", "keys-against-queries")]
    + [_built(mask.variant_of, mask.__doc__, visible=mask, masking=fill)
       for mask in variants_in(vars(pieces), of="mask") if mask.variant_of in EARLIER_MASKS
       for fill in pieces.HONEST_FILLS]
    + [_built("mask-arithmetic", m.__doc__, masking=m) for m in pieces.MASK_ARITHMETIC]
    + [_built("mask-inverted", m.__doc__, masking=m) for m in pieces.MASK_INVERTED]
    + [_built("mask-after-softmax", pieces.zeroed_after.__doc__, masking=pieces.zeroed_after),
       _built("no-max-shift", softmax_pieces.no_shift.__doc__, softmax=softmax_pieces.no_shift),
       _built("softmax-wrong-axis", "the softmax ran over the queries (axis -2), not over the keys (axis -1)",
              softmax=_over_queries)])

def unmasked(q, k, v, base):
    """No causal mask at all (not catalogued): a rival explanation for outputs that equal it."""
    return attend(q, k, v, base, visible=lambda t, n_k: np.ones((t, n_k), bool))


ROPE_RIVALS = (rotate_half_with_interleaved_table,)  # mistakes outside the catalogue that rope's outputs can show


def _interleaved_table_attention(q, k, v, base):
    """rope_attention rotating with the interleaved cos/sin table on half-split pairs (a rival, not catalogued)."""
    return attend(q, k, v, base, rotate=rotate_half_with_interleaved_table)


ATTENTION_RIVALS = (unmasked, _interleaved_table_attention)


ATTENTION_VARIANTS = [*variants_in(globals(), of="attention"), *(_with_rope(f) for f in ROPE_VARIANTS)]

"""What code carrying a catalogued bug of kata 13 returns from sliding_window_mask and from
RollingKVCache.kept(), to recognise the bug by its output; rivals are mistakes outside the catalogue."""

import numpy as np

from checker.engine.testkit import variant, variants_in
from checker.hidden.sliding_window.variants import band


# --- sliding_window_mask(n_q, n_k, window) ------------------------------------------------------------------

def _lags(n_q, n_k, top_left=False):
    first = 0 if top_left else n_k - n_q
    return np.arange(first, first + n_q)[:, None] - np.arange(n_k)[None, :]  # (n_q, n_k)


@variant("window-off-by-one", of="mask")
def _mask_one_too_many(n_q, n_k, window):
    """each query may see window + 1 keys (pos - j <= window): the band is its own position and the
    window - 1 before it, 0 <= pos - j < window"""
    lag = _lags(n_q, n_k)
    return (lag >= 0) & (lag <= window)


@variant("window-off-by-one", of="mask")
def _mask_one_too_few(n_q, n_k, window):
    """each query may see window - 1 keys (pos - j < window - 1): the band holds window positions, the
    query's own included, 0 <= pos - j < window"""
    lag = _lags(n_q, n_k)
    return (lag >= 0) & (lag < window - 1)


@variant("window-no-causal", of="mask")
def _mask_two_sided(n_q, n_k, window):
    """a query may see later keys (|pos - j| < window): the band bounds only the past; keep j <= pos too"""
    return np.abs(_lags(n_q, n_k)) < window


@variant("window-top-left", of="mask")
def _mask_top_left(n_q, n_k, window):
    """the band is aligned top-left (query i at position i): the queries are the LAST n_q of the n_k
    positions, query i at n_k - n_q + i"""
    lag = _lags(n_q, n_k, top_left=True)
    return (lag >= 0) & (lag < window)


@variant("mask-inverted", of="mask")
def _mask_inverted(n_q, n_k, window):
    """True marks the blocked keys: True = may attend (PyTorch's boolean attn_mask convention)"""
    return ~band(n_q, n_k, window)


def _mask_causal(n_q, n_k, window):
    return _lags(n_q, n_k) >= 0


def _mask_ones(n_q, n_k, window):
    return np.ones((n_q, n_k), bool)


MASK_RIVALS = (_mask_causal, _mask_ones)


# --- RollingKVCache.kept() after a list of appends -----------------------------------------------------------

def kept_expected(chunks, window):
    """The right (k, v): the last min(n, window) positions of every chunk appended, oldest first."""
    k = np.concatenate([c[0] for c in chunks], axis=2)  # (b, h, n, d)
    v = np.concatenate([c[1] for c in chunks], axis=2)
    return k[:, :, -window:], v[:, :, -window:]


@variant("ring-order-wrong", of="kept")
def _storage_order(chunks, window):
    """kept() returned the ring buffer in its storage order (slot p % window), not oldest first: unroll
    it, positions len - m ... len - 1 in order (np.roll by the write slot, or index with (start + arange) % window)"""
    k, v = kept_expected(chunks, window)
    n = sum(c[0].shape[2] for c in chunks)
    if n < window:
        raise ValueError("no wrap-around yet: storage order is oldest first")
    shift = n % window  # the slot of the oldest kept position
    return np.roll(k, shift, axis=2), np.roll(v, shift, axis=2)


@variant("cache-overwritten", of="kept")
def _kept_last_chunk(chunks, window):
    """kept() held only the last chunk appended: each append replaced the storage; keep the last window
    positions of everything appended"""
    return chunks[-1][0][:, :, -window:], chunks[-1][1][:, :, -window:]


@variant("cache-wrong-axis", of="kept")
def _kept_heads_axis(chunks, window):
    """the chunks were joined along the heads axis (axis 1), not positions: keys and values grow along
    axis 2 of (b, h, n, d)"""
    k = np.concatenate([c[0] for c in chunks], axis=1)
    v = np.concatenate([c[1] for c in chunks], axis=1)
    return k[:, :, -window:], v[:, :, -window:]


@variant("cache-wrong-axis", of="kept")
def _kept_channel_axis(chunks, window):
    """the chunks were joined along the channels axis (the last), not positions: keys and values grow
    along axis 2 of (b, h, n, d)"""
    k = np.concatenate([c[0] for c in chunks], axis=-1)
    v = np.concatenate([c[1] for c in chunks], axis=-1)
    return k[:, :, -window:], v[:, :, -window:]


def _kept_newest_first(chunks, window):
    k, v = kept_expected(chunks, window)
    return k[:, :, ::-1], v[:, :, ::-1]


KEPT_RIVALS = (_kept_newest_first,)


MASK_VARIANTS = variants_in(dict(globals()), of="mask")
KEPT_VARIANTS = variants_in(dict(globals()), of="kept")

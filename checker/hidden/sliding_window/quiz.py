"""The answers of kata 13's quiz questions, computed from their drawn values (prompts.yaml names them)."""


def cache_numbers(layers, h, positions, d_head):
    """Keys and values of `positions` positions, every layer and kv head (batch 1)."""
    return 2 * layers * h * positions * d_head


def rolling_cache_mebibytes(layers, h, window, n, d_head):
    """A rolling cache holds min(n, window) positions, in float16 (2 bytes a number)."""
    return cache_numbers(layers, h, min(n, window), d_head) * 2 / 2**20


def full_cache_mebibytes(layers, h, n, d_head):
    """A full cache holds all n positions, in float16."""
    return cache_numbers(layers, h, n, d_head) * 2 / 2**20


def memory_ratio(window, n):
    """How many times more a full cache holds than a rolling one at position n."""
    return n / min(n, window)


def receptive_field(layers, window):
    """Each layer reaches window - 1 positions further back: after L layers, L * (window - 1)."""
    return layers * (window - 1)


def kept_positions(n, window):
    return min(n, window)


def ring_slot(position, window):
    """Position p is written at slot p % window."""
    return position % window


def oldest_slot(n, window):
    """After n >= window positions the oldest kept one, n - window, sits at slot (n - window) % window = n % window."""
    return (n - window) % window


def decode_keys(n, window):
    """The decode step at position n sees positions n - window + 1 ... n (fewer near the start)."""
    return min(n + 1, window)


def chunk_scores_shape(t, window):
    """t new queries against the window kept keys and the t new ones."""
    return (t, window + t)


def first_visible(position, window):
    return max(position - window + 1, 0)


def cache_length(prefill, steps):
    """len counts every position ever appended, the dropped ones too."""
    return prefill + steps

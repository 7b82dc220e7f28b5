"""Reading a learner's exception as evidence: what `q @ k.T` on a batched k raises, in NumPy and in PyTorch, and
PyTorch's refusal of a float16 fill that overflows. Text only: the parent never imports torch to read them.

A torch file's mistake often shows as an exception where its NumPy twin runs on (or raises NumPy's own words);
each reading here says exactly which message that mistake gives on the shapes the test used, so a rival with
another shape error (a transpose of the wrong axes, a 2-D-only file) is never read as it."""

import math


def full_transpose_error(message, q_shape, k_shape):
    """True when `message` is what q @ k.T (or np.dot(q, k.T), or torch.matmul(q, k.T)) raises for a batched k of
    `k_shape`: k.T reverses every axis, so the product meets k's axis 1 where the d channels of q belong (np.matmul's
    or np.dot's shape message), or torch's batch dimensions fail to broadcast (torch's own message, reproduced)."""
    if len(k_shape) < 3:
        return False
    if message == torch_matmul_error(q_shape, tuple(k_shape)[::-1]):
        return True
    if k_shape[1] == q_shape[-1]:
        return False
    d, wrong = q_shape[-1], k_shape[1]
    return (f"size {wrong} is different from {d}" in message or
            f"{d} (dim {len(q_shape) - 1}) != {wrong} (dim {len(k_shape) - 2})" in message)


def torch_matmul_error(a_shape, b_shape):
    """The message torch.matmul(a, b) raises for operands of these shapes when one is at least 3-D, or None where
    it raises none this reading knows: the batch dimensions broadcast from the last to the first (ATen's
    infer_size), then the batched product checks the inner sizes (bmm's message, batch dimensions folded)."""
    a, b = tuple(a_shape), tuple(b_shape)
    if max(len(a), len(b)) < 3 or min(len(a), len(b)) < 2:
        return None
    batch_a, batch_b = a[:-2], b[:-2]
    n = max(len(batch_a), len(batch_b))
    broadcast = []
    for i in range(n - 1, -1, -1):
        offset = n - 1 - i
        x = batch_a[len(batch_a) - 1 - offset] if offset < len(batch_a) else 1
        y = batch_b[len(batch_b) - 1 - offset] if offset < len(batch_b) else 1
        if x != y and 1 not in (x, y):
            return f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}"
        broadcast.append(max(x, y))
    if a[-1] == b[-2] or len(a) > 2 and len(b) == 2:
        return None  # a 3-D a against a 2-D b folds into one plain product: not read here
    folded = math.prod(broadcast)
    return (f"Expected size for first two dimensions of batch2 tensor to be: [{folded}, {a[-1]}] but got: "
            f"[{folded}, {b[-2]}].")


def torch_fill_overflows(message, dtype="Half"):
    """True when `message` is PyTorch refusing a fill value its dtype cannot hold (masked_fill(-1e9) on float16:
    "value cannot be converted to type c10::Half without overflow"), what NumPy does silently by rounding -1e9 to
    -inf."""
    return "cannot be converted to type" in message and dtype in message and "without overflow" in message

"""Every reference solution agrees with PyTorch's own attention on the same numbers.

PyTorch is an optional extra (`pip install -e ".[torch]"`); without it these tests skip.
"""

import numpy as np
import pytest

from checker.engine import catalog

torch = pytest.importorskip("torch")
F = torch.nn.functional


def reference(slug):
    return catalog.find(slug).reference()


def tensor(array):
    return torch.from_numpy(np.ascontiguousarray(array))


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("q_shape, k_shape", [((3, 4), (5, 4)), ((2, 3, 4, 8), (2, 3, 6, 8)), ((2, 3, 4, 6), (3, 5, 6))])
def test_scores_match_torch(rng, q_shape, k_shape):
    q, k = rng.normal(size=q_shape), rng.normal(size=k_shape)
    expected = tensor(q) @ tensor(k).transpose(-2, -1) / np.sqrt(q.shape[-1])
    np.testing.assert_allclose(reference("scores").attention_scores(q, k), expected.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("axis", [-1, 0, 1, -2])
def test_softmax_matches_torch(rng, axis):
    x = rng.normal(size=(3, 4, 5)) * 50
    x[0, 1, 2] = -np.inf
    expected = torch.softmax(tensor(x), dim=axis).numpy()
    np.testing.assert_allclose(reference("softmax").softmax(x, axis), expected, rtol=1e-12, atol=1e-15)


def test_softmax_large_scores_match_torch():
    x = np.array([[1e4, 1e4 - 1, 1e4 - 3], [-1e4, 0.0, 1e4], [-1000.0, -1001.0, -1003.0]])
    np.testing.assert_allclose(reference("softmax").softmax(x), torch.softmax(tensor(x), -1).numpy(), atol=1e-15)


@pytest.mark.parametrize("causal", [True, False])
def test_multi_head_matches_torch(rng, causal):
    b, n, d_model, h = 2, 5, 12, 3
    x = rng.normal(size=(b, n, d_model))
    w_q, w_k, w_v, w_o = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4))
    layer = torch.nn.MultiheadAttention(d_model, h, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():  # torch applies weights as x @ W.T
        layer.in_proj_weight.copy_(tensor(np.concatenate([w_q.T, w_k.T, w_v.T])))
        layer.out_proj.weight.copy_(tensor(w_o.T))
        blocked = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1) if causal else None
        expected, _ = layer(tensor(x), tensor(x), tensor(x), attn_mask=blocked, need_weights=False)
    got = reference("multi-head").multi_head_attention(x, w_q, w_k, w_v, w_o, h, causal=causal)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-10, atol=1e-12)


def test_split_heads_matches_torch_view(rng):
    x = rng.normal(size=(2, 5, 12))
    expected = tensor(x).view(2, 5, 3, 4).transpose(1, 2).numpy()
    np.testing.assert_array_equal(reference("multi-head").split_heads(x, 3), expected)
    np.testing.assert_array_equal(reference("multi-head").merge_heads(expected), x)


def _sdpa(q, k, v, allowed):
    """PyTorch's scaled_dot_product_attention with a boolean mask (True = may attend)."""
    return F.scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), attn_mask=tensor(allowed)).numpy()


@pytest.mark.parametrize("n_q, n_k", [(2, 5), (1, 4), (4, 4)])
def test_causal_mask_matches_torch_lower_right(rng, n_q, n_k):
    from torch.nn.attention.bias import causal_lower_right

    q, k, v = rng.normal(size=(2, 3, n_q, 4)), rng.normal(size=(2, 3, n_k, 4)), rng.normal(size=(2, 3, n_k, 6))
    expected = F.scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), attn_mask=causal_lower_right(n_q, n_k))
    out, _ = reference("causal-mask").attention(q, k, v, reference("causal-mask").causal_mask(n_q, n_k))
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n_q, n_k", [(2, 5), (1, 4), (5, 5)])
def test_causal_attention_matches_torch(rng, n_q, n_k):
    q, k, v = rng.normal(size=(2, 3, n_q, 4)), rng.normal(size=(2, 3, n_k, 4)), rng.normal(size=(2, 3, n_k, 6))
    mask = reference("causal-mask").causal_mask(n_q, n_k)
    out, _ = reference("causal-mask").attention(q, k, v, mask)
    np.testing.assert_allclose(out, _sdpa(q, k, v, mask), rtol=1e-10, atol=1e-12)


def test_padding_with_fully_masked_rows_matches_torch(rng):
    q, k, v = rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 2, 4)), rng.normal(size=(2, 2, 3))
    mask = reference("causal-mask").causal_mask(5, 2)  # queries 0-2 see no key
    out, weights = reference("causal-mask").attention(q, k, v, mask)
    expected = _sdpa(q, k, v, mask)  # PyTorch >= 2.5 gives zeros for a query with no visible key
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
    assert (weights[:, :3] == 0).all() and (out[:, :3] == 0).all()


@pytest.mark.parametrize("chunks", [[6], [3, 1, 1, 1], [1] * 6, [2, 4]])
def test_kv_cache_decode_matches_torch(rng, chunks):
    b, d_model, h = 2, 12, 3
    n = sum(chunks)
    x = rng.normal(size=(b, n, d_model))
    w_q, w_k, w_v, w_o = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4))
    kv = reference("kv-cache")
    cache, outputs, start = kv.KVCache(), [], 0
    for t in chunks:
        outputs.append(kv.cached_attention(x[:, start:start + t], cache, w_q, w_k, w_v, w_o, h))
        start += t
    layer = torch.nn.MultiheadAttention(d_model, h, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        layer.in_proj_weight.copy_(tensor(np.concatenate([w_q.T, w_k.T, w_v.T])))
        layer.out_proj.weight.copy_(tensor(w_o.T))
        blocked = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        expected, _ = layer(tensor(x), tensor(x), tensor(x), attn_mask=blocked, need_weights=False)
    np.testing.assert_allclose(np.concatenate(outputs, axis=1), expected.numpy(), rtol=1e-10, atol=1e-12)
    assert len(cache) == n


FLASH_CASES = [  # (n_q, n_k, block_size, causal, padding): block sizes that divide n_k, do not, 1 and beyond n_k
    (5, 12, 4, False, False), (5, 11, 4, True, False), (3, 10, 1, True, True), (7, 4, 3, True, False),
    (4, 9, 16, False, True), (6, 6, 5, True, True),
]


@pytest.mark.parametrize("n_q, n_k, block_size, causal, padding", FLASH_CASES)
def test_flash_attention_matches_torch_sdpa(rng, n_q, n_k, block_size, causal, padding):
    """Boolean masks and lower-right causal, as kata 08's contract: against PyTorch's scaled_dot_product_attention,
    with scores large enough (about +-20) that a missing rescale would show."""
    from torch.nn.attention.bias import causal_lower_right

    q, k, v = rng.normal(size=(2, 3, n_q, 8)) * 3, rng.normal(size=(2, 3, n_k, 8)) * 3, rng.normal(size=(2, 3, n_k, 5))
    allowed = np.ones((2, 1, 1, n_k), bool)
    if padding:
        allowed[1, ..., :min(n_k - 1, block_size + 1)] = False  # left padding over the whole first block
    got = reference("flash").flash_attention(q, k, v, block_size=block_size, causal=causal, mask=allowed)
    full = np.broadcast_to(allowed, (2, 3, n_q, n_k))
    if causal:
        full = full & causal_lower_right(n_q, n_k)._materialize().numpy()
    expected = F.scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), attn_mask=tensor(full)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)  # a query with no visible key: 0 in both


def test_flash_attention_float32_matches_torch_sdpa(rng):
    q, k, v = (rng.normal(size=(2, 2, n, 8)).astype(np.float32) * 3 for n in (4, 13, 13))
    got = reference("flash").flash_attention(q, k, v, block_size=5, causal=True)
    from torch.nn.attention.bias import causal_lower_right

    expected = F.scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), attn_mask=causal_lower_right(4, 13))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-4, atol=1e-5)
@pytest.mark.parametrize("n_rep", [1, 2, 3])
def test_repeat_kv_matches_torch_repeat_interleave(rng, n_rep):
    x = rng.normal(size=(2, 3, 5, 4))
    expected = torch.repeat_interleave(tensor(x), n_rep, dim=1).numpy()
    np.testing.assert_array_equal(reference("gqa").repeat_kv(x, n_rep), expected)


@pytest.mark.parametrize("h_q, h_kv", [(8, 2), (6, 3), (4, 1), (3, 3)])
@pytest.mark.parametrize("n_q, n_k, causal", [(4, 7, True), (1, 6, True), (5, 5, True), (3, 6, False)])
def test_gqa_matches_torch_sdpa(rng, h_q, h_kv, n_q, n_k, causal):
    b, d, d_v = 2, 5, 3
    q, k = rng.normal(size=(b, h_q, n_q, d)), rng.normal(size=(b, h_kv, n_k, d))
    v = rng.normal(size=(b, h_kv, n_k, d_v))
    if causal and n_q == n_k:
        expected = F.scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), is_causal=True, enable_gqa=True)
    else:  # a boolean lower-right mask, True = may attend: the queries are the last n_q positions
        allowed = torch.ones(n_q, n_k, dtype=torch.bool).tril(diagonal=n_k - n_q) if causal else None
        expected = F.scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), attn_mask=allowed, enable_gqa=True)
    got = reference("gqa").grouped_query_attention(q, k, v, causal=causal)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-10, atol=1e-12)


def test_gqa_head_mapping_matches_torch(rng):
    """Query head i reads kv head i // (h_q / h_kv) in PyTorch too: one-hot values name the head read."""
    b, h_q, h_kv, n = 1, 6, 3, 4
    q, k = rng.normal(size=(b, h_q, n, 4)), rng.normal(size=(b, h_kv, n, 4))
    v = np.broadcast_to(np.eye(h_kv)[:, None, :], (b, h_kv, n, h_kv)).copy()
    expected = F.scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), enable_gqa=True).numpy()
    assert expected[0, :, 0].argmax(axis=-1).tolist() == [0, 0, 1, 1, 2, 2]
    np.testing.assert_allclose(reference("gqa").grouped_query_attention(q, k, v, causal=False), expected, atol=1e-12)


# --- 06 rope: the Llama / GPT-NeoX rotate_half formula, transcribed in torch -------------------------------

def _rotate_half(x):
    """Hugging Face's rotate_half (transformers' modeling_llama): the second half, negated, then the first."""
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def _torch_rope(x, positions, base=10000.0, dtype=torch.float64):
    """LlamaRotaryEmbedding + apply_rotary_pos_emb: inv_freq, the cos/sin cache of width d, x cos + rotate_half(x) sin.

    dtype=torch.float32 computes inv_freq and the angles in float32, as Hugging Face does."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).to(dtype) / d))
    freqs = tensor(np.asarray(positions)).to(dtype)[..., None] * inv_freq  # (..., n, d/2)
    emb = torch.cat((freqs, freqs), dim=-1)  # (..., n, d)
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    return x * cos + _rotate_half(x) * sin


@pytest.mark.parametrize("shape, positions", [
    ((2, 3, 5, 8), np.arange(5)),
    ((2, 3, 5, 10), np.array([7, 0, 300, 42, 1])),
    ((3, 2, 6, 8), np.maximum(np.arange(6) - np.array([2, 0, 3])[:, None], 0)[:, None, :]),  # left-padded rows
    ((2, 6, 16), np.array([0, 1, 4095, 32768, 65535, 65536])),
])
def test_rope_matches_torch_rotate_half(rng, shape, positions):
    from checker.hidden.rope.variants import right

    x = rng.normal(size=shape)
    for base in (10000.0, 500000.0):
        expected = _torch_rope(tensor(x), positions, base).numpy()
        np.testing.assert_allclose(reference("rope").rope(x, positions, base), expected, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(right(x, positions, base), expected, rtol=1e-12, atol=1e-9)  # the hidden tests' own


def test_rope_tolerance_accepts_hugging_face_float32_angles(rng):
    """Hugging Face computes the angles in float32: at 65 536 they are off by up to ~1e-2 radians. The hidden
    tests' tolerance, which grows with the angle, must accept that, and must still be far tighter than a bug."""
    from checker.hidden.rope.tests import rope_tolerance
    from checker.engine.testkit import close

    positions = np.array([0, 1, 4095, 32768, 65535, 65536])
    for base in (10000.0, 500000.0):
        for dtype in (np.float64, np.float32):
            x = rng.normal(size=(2, 6, 16)).astype(dtype)
            hf = _torch_rope(tensor(x), positions, base, dtype=torch.float32).numpy()
            want = reference("rope").rope(x.astype(np.float64), positions, base)
            assert close(hf, want, *rope_tolerance(x, positions, base)).all()
            wrong = reference("rope").rope(x.astype(np.float64), positions + 1, base)  # one position off
            assert not close(wrong, want, *rope_tolerance(x, positions, base)).all()


def test_rope_relative_position_property_matches_torch(rng):
    q, k = rng.normal(size=12), rng.normal(size=12)
    rope = reference("rope").rope
    for shift in (5, -3, 1000):
        m = np.array([0, 17, 4000, 65536 - 1000])
        queries, keys = np.tile(q, (len(m), 1)), np.tile(k, (len(m), 1))
        ours = np.sum(rope(queries, m) * rope(keys, m + shift), axis=-1)
        theirs = (_torch_rope(tensor(queries), m) * _torch_rope(tensor(keys), m + shift)).sum(-1).numpy()
        at_zero = float(np.sum(rope(q[None], [0]) * rope(k[None], [shift])))
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(ours, at_zero, rtol=1e-9, atol=1e-9)  # only n - m counts


@pytest.mark.parametrize("t, n_k", [(1, 9), (3, 8), (6, 6)])
def test_rope_attention_matches_torch_sdpa(rng, t, n_k):
    from torch.nn.attention.bias import causal_lower_right

    q, k, v = rng.normal(size=(2, 3, t, 8)), rng.normal(size=(2, 3, n_k, 8)), rng.normal(size=(2, 3, n_k, 6))
    q_rot = _torch_rope(tensor(q), np.arange(n_k - t, n_k))
    k_rot = _torch_rope(tensor(k), np.arange(n_k))
    lower_right = torch.ones(t, n_k, dtype=torch.bool).tril(diagonal=n_k - t)
    expected = F.scaled_dot_product_attention(q_rot, k_rot, tensor(v), attn_mask=lower_right).numpy()
    got = reference("rope").rope_attention(q, k, v)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    bias = F.scaled_dot_product_attention(q_rot, k_rot, tensor(v), attn_mask=causal_lower_right(t, n_k)).numpy()
    np.testing.assert_allclose(got, bias, rtol=1e-10, atol=1e-12)
def _hf_warped_probs(logits, temperature, top_k, top_p):
    """Hugging Face's TemperatureLogitsWarper, TopKLogitsWarper and TopPLogitsWarper (min_tokens_to_keep = 1),
    in torch as transformers writes them, then the softmax of generate(do_sample=True)."""
    scores = tensor(logits) / temperature
    if top_k:
        k = min(top_k, scores.size(-1))
        scores = scores.masked_fill(scores < torch.topk(scores, k)[0][..., -1, None], -float("inf"))
    if top_p is not None and top_p < 1:
        sorted_logits, sorted_indices = torch.sort(scores, descending=False, stable=True)
        cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
        sorted_indices_to_remove[..., -1:] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(-1, sorted_indices, sorted_indices_to_remove)
        scores = scores.masked_fill(indices_to_remove, -float("inf"))
    return torch.softmax(scores, dim=-1).numpy()


@pytest.mark.parametrize("temperature, top_k, top_p", [(1.0, None, None), (0.5, 3, None), (2.0, None, 0.8),
                                                       (0.7, 5, 0.9), (1.3, 1, 0.5), (1.0, 20, 0.3)])
def test_sampling_matches_hugging_face_warpers_in_torch(rng, temperature, top_k, top_p):
    ref = reference("sampling")
    logits = rng.normal(size=(3, 4, 11)) * 2
    probs = ref.next_token_probs(logits, temperature, top_k)
    ranked = -np.sort(-probs, axis=-1)
    assert np.abs(np.cumsum(ranked, axis=-1) - ranked - (top_p or 2)).min() > 1e-6  # no sum on top_p
    expected = _hf_warped_probs(logits, temperature, top_k, top_p)
    np.testing.assert_allclose(ref.next_token_probs(logits, temperature, top_k, top_p), expected, rtol=0, atol=1e-12)


def test_sampling_draw_matches_torch_searchsorted(rng):
    probs = reference("sampling").next_token_probs(rng.normal(size=(4, 9)), top_k=6)
    u = np.array([0.0, 0.31, 0.77, 0.999])
    expected = torch.searchsorted(tensor(np.cumsum(probs, -1)), tensor(u)[:, None], right=True)[:, 0].numpy()
    assert reference("sampling").sample_token(probs, u).tolist() == expected.tolist()


def _autograd(q, k, v, d_out, allowed):
    """(dq, dk, dv) of PyTorch's SDPA (float64) with a boolean mask, by autograd; k and v may be broadcast."""
    leaves = [tensor(x).requires_grad_() for x in (q, k, v)]
    out = F.scaled_dot_product_attention(*leaves, attn_mask=None if allowed is None else tensor(allowed))
    out.backward(tensor(d_out))
    return [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.parametrize("n_q, n_k, padding", [(4, 6, False), (3, 5, True), (5, 5, False), (5, 2, False)])
def test_attention_backward_matches_torch_autograd(rng, n_q, n_k, padding):
    q, k, v = rng.normal(size=(2, 3, n_q, 5)), rng.normal(size=(2, 3, n_k, 5)), rng.normal(size=(2, 3, n_k, 7))
    d_out = rng.normal(size=(2, 3, n_q, 7))
    mask = reference("causal-mask").causal_mask(n_q, n_k)  # (5, 2): queries 0-2 see no key
    if padding:
        keep = np.ones((2, 1, 1, n_k), bool)
        keep[1, ..., :2] = False  # example 1's keys 0-1 are padding
        mask = mask & keep
    got = reference("backward").attention_backward(q, k, v, d_out, mask)
    for mine, theirs in zip(got, _autograd(q, k, v, d_out, mask)):
        np.testing.assert_allclose(mine, np.nan_to_num(theirs), rtol=1e-10, atol=1e-12)


def test_attention_backward_broadcast_matches_torch_autograd(rng):
    q, d_out = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 4, 2))
    k, v = rng.normal(size=(6, 5)), rng.normal(size=(1, 6, 2))  # shared by every example and head
    got = reference("backward").attention_backward(q, k, v, d_out)
    for mine, theirs in zip(got, _autograd(q, k, v, d_out, None)):
        assert mine.shape == theirs.shape
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_backward_matches_torch_autograd(rng, axis):
    x, dy = tensor(rng.normal(size=(3, 4, 5)) * 3).requires_grad_(), rng.normal(size=(3, 4, 5))
    y = torch.softmax(x, dim=axis)
    y.backward(tensor(dy))
    got = reference("backward").softmax_backward(y.detach().numpy(), dy, axis)
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-10, atol=1e-13)

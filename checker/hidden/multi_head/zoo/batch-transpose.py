import numpy as np

def split_heads(x, n_heads):
    b, n, d_model = x.shape
    if d_model % n_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    return x.reshape(b, n, n_heads, d_model // n_heads).transpose(0, 2, 1, 3)

def merge_heads(x):
    b, h, n, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, n, h * d)

def _softmax(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)

def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=True):
    b, n, d_model = x.shape
    q = split_heads(x @ w_q, n_heads)
    k = split_heads(x @ w_k, n_heads)
    v = split_heads(x @ w_v, n_heads)
    d_head = d_model // n_heads
    s = q @ k.T / np.sqrt(d_head)
    if causal:
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    out = _softmax(s) @ v
    return merge_heads(out) @ w_o

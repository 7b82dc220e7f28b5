"""Kata 08: tiled attention with an online softmax (FlashAttention's idea in NumPy)."""

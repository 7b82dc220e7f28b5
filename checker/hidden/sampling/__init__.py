"""Kata 09: sampling the next token (temperature, top-k, top-p, an inverse-CDF draw)."""

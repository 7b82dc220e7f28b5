"""Kata speculative: its hidden tests, buggy variants, quiz answers, public checks and zoo."""

"""Kata sliding-window: its hidden tests, buggy variants, quiz answers, public checks and zoo."""

"""Kata beam-search: its hidden tests, buggy variants, quiz answers, public checks and zoo."""
